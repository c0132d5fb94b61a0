# %-formatting (integer division inside the arguments)
print '%d %5.2f %s' % (3, 3.14159, 'x')
print '%r' % 'a', '%03d' % 7
print 'result: %.3e' % 12345.678
print '%s|%-4s|' % (10 / 4, 'ab')
print '%(name)s=%(val)d' % {'name': 'n', 'val': 2}
print str(10 / 4) + '!'
print '%5.1f%%' % 12.34
