# print writes str(float): 12 significant digits in Python 2 (repr inside containers)
print 0.1, 1 / 3.0, 2.0, 100.0
print 1e20, 1.5e-7, 123456789.123, -0.0
print [0.1, 1 / 3.0], (2.5,)
print 1e16, 1e11, 0.1 + 0.2
x = 10 / 4.0
print 'x =', x
