# basestring, long, unicode, unichr, StandardError, intern
print isinstance('x', basestring), isinstance(u'x', basestring), isinstance(1, basestring)
print long(7) / 2, isinstance(3L, (int, long))
print unicode(5) + u'!', unichr(65)
print type(long(3)) in (int, long)
print callable(raw_input), callable(execfile), callable(file)
try:
    raise StandardError('old base class')
except StandardError, e:
    print e
print intern('abc') == 'abc'
