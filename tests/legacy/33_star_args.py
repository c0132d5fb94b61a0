# *args and **kwargs in definitions and calls (keyword before *args is allowed)
def f(*args, **kw):
    return len(args), sorted(kw.items())
print f(1, 2, a=3)
t = (1, 2)
d = {'x': 1}
print f(*t, **d)
def g(a, b=2, *c):
    return a, b, c
print g(1), g(1, 5, 6, 7)
print f(0, *t)
print f(key=1, *t)
