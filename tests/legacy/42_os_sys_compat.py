# os.getcwdu, sys.maxint, oct, file.xreadlines
import os, sys
print os.getcwdu() == os.getcwd(), sys.maxint > 2 ** 30
print oct(8), oct(0), oct(-8)
f = open('lines_tmp.txt', 'w')
f.write('a\nb\n')
f.close()
n = 0
for line in open('lines_tmp.txt').xreadlines():
    n += 1
print n
os.remove('lines_tmp.txt')
