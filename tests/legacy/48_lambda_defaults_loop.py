# lambdas with defaults made in a comprehension; print in a loop then a bare print
fs = [lambda x, k=k: x * k / 2 for k in range(3)]
print [f(5) for f in fs]
for i in range(3):
    print i,
print
print 'done'
