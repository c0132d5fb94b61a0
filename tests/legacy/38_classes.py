# classic and new-style classes; __div__ is used by /
class A:
    def __init__(self, v):
        self.v = v
    def __repr__(self):
        return 'A(%d)' % self.v
class B(A):
    def double(self):
        return A(self.v * 2)
print A(3), [A(1)]
b = B(4)
print b.double(), isinstance(b, A)
print B.__name__, hasattr(b, 'double')
class Vec(object):
    def __init__(self, x):
        self.x = x
    def __div__(self, k):
        return Vec(self.x / k)
    def __str__(self):
        return 'Vec(%s)' % self.x
print Vec(7) / 2, Vec(7.0) / 2
