# print >>file: None means sys.stdout; the softspace belongs to the file object
import sys
print >>sys.stdout, 'to', 'stdout'
print >>sys.stderr, 'to stderr'
print >>None, 'none means stdout'
print >>sys.stdout
print >>sys.stdout, 'trailing',
print 'next'
out = [sys.stdout]
print >>out[0], 'indexed', 1
