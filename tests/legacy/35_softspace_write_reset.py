# file.write clears a pending print space (Python 2 file objects did)
import sys
print 'a',
sys.stdout.write('b')
print 'c'
print 'd',
sys.stdout.write('\n')
print 'e'
w = sys.stdout.write
print 'f',
w('g')
print 'h'
