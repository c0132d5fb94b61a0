# tuple parameters in def and lambda, nested, with defaults, and a bad unpack
def f(a, (b, c)):
    return a + b * c
print f(1, (2, 3))
g = lambda (x, y): x - y
print g((5, 2))
print map(lambda (k, v): k + v, [(1, 2), (3, 4)])
def h((a, (b, c)), d=1):
    return a + b + c + d
print h((1, (2, 3))), h([1, [2, 3]], 10)
def m((a, b)):
    if a > b:
        return a
    return b
print m((3, 9)), m((9, 3))
def n((a, b), ((c,), d)):
    for i in range(a):
        b += c * d
    return b
print n((2, 1), ((3,), 4))
try:
    f(1, (2, 3, 4))
except ValueError, e:
    print 'ValueError:', e
