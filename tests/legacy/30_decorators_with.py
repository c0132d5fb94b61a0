# decorators; with (two managers in one statement); print inside __enter__/__exit__
def shout(fn):
    def wrapper(*args):
        return fn(*args).upper()
    return wrapper
@shout
def greet(name):
    return 'hi ' + name
print greet('bob')
class Ctx(object):
    def __enter__(self):
        print 'enter',
        return self
    def __exit__(self, *exc):
        print 'exit'
        return False
with Ctx() as c:
    print 'body',
f = open('with_tmp.txt', 'w')
print >>f, 'line one'
f.close()
with open('with_tmp.txt') as g, Ctx():
    print g.read(),
import os
os.remove('with_tmp.txt')
