# reduce and apply are builtins
print reduce(lambda a, b: a + b, [1, 2, 3, 4])
print reduce(lambda a, b: a * b, [1, 2, 3], 10)
def f(a, b, c=0):
    return a + b + c
print apply(f, (1, 2)), apply(f, (1,), {'b': 5, 'c': 1})
print reduce(lambda a, b: a / b, [100, 3, 2])
