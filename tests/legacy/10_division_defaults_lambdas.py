# integer division inside default values, lambdas, comprehensions and closures
def f(a, b=7/2):
    return a / b
print f(9), f(9.0), f(10, 4)
g = lambda x, y=5/2: x / y
print g(9), g(9.0), g(-9)
print (lambda: 1 / 2)()
h = lambda n: [k / 2 for k in range(n)]
print h(5)
def outer(n):
    def inner(m=n/2):
        return m / 2
    return inner()
print outer(9)
print map(lambda v: v / 3, [3, 4, 5, -1])
