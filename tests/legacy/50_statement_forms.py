# statement and expression forms: imports in parentheses, decorators with arguments,
# comment lines at column 0 inside a block, yield as an expression, slices and Ellipsis
import os.path as osp
from os import (sep,
    path,)
def deco(n):
    def wrap(f):
        return f
    return wrap
@deco(2)
class K():
    pass
if 1:
    y = 1
# comment at col 0
    z = 2
else: pass
if 0: pass
elif 1: print 'elif ok'
else: pass
f = lambda *a, **k: (a, k)
print f(1, b=2)
a = range(20)
print a[1:10:3], a[::5][-1]
s = {1, 2,}
d = {'a': 1,}
print not 1 in [2], 1 if 0 else 2 if 0 else 3
def g():
    x = yield
    yield x
it = g(); it.next(); print it.send(5)
assert 1, 'msg'
def h():
    global y, z
    y = z = 0
h(); print y, z
t = ('a'
     'b')
print t, 0777 + 0x1 - 01
if 1 and \
   2:
    print 'cont'
print >>None, ('x'),
print
w = [1, 2, 3]
w[::2] = [0, 0]
print w, `w`[:2]
class Q(object):
    def __init__(self, n): self.n = n
    def __getitem__(self, k): return k
q = Q(3)
print q[1:2, ...], q[...]
print [i for i in range(3) if i if i > 1]
print sorted(set([3, 1])), list(reversed([1, 2]))
