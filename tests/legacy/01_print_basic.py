# print statement: items separated by one space, bare print ends the line
print "hello"
print 1, 2, 3
print
print "a" "b"
print 'x' + 'y', 'z'
print None, True, False
print 1, 'a', [1, 'a'], (1,), {}
print -3, 10 ** 2
