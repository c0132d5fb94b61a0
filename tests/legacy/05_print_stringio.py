# print >> a StringIO: the file's own softspace
import StringIO
buf = StringIO.StringIO()
print >>buf, 'a', 2,
print >>buf, 'b'
print >>buf
text = buf.getvalue()
print repr(text)
print len(text)
