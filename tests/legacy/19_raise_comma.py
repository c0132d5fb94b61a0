# raise E, value: a tuple value gives the arguments, an instance is raised as it is
try:
    raise ValueError, "bad value"
except ValueError, e:
    print 'message:', e
try:
    raise KeyError, ('a',)
except KeyError, e:
    print 'key:', e
class MyError(Exception):
    pass
try:
    raise MyError, MyError('own')
except MyError, e:
    print 'own error:', e
try:
    raise TypeError('plain')
except TypeError, e:
    print e
