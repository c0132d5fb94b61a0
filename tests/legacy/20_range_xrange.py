# range returns a list, xrange a lazy sequence
print range(5)
print range(2, 10, 3)
print range(5, 0, -2)
r = range(3)
r.append(99)
print r
for i in xrange(3):
    print i,
print
print sum(xrange(5)), len(xrange(4))
print type(range(2)) == list
