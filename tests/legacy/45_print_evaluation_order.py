# each print item is evaluated and written before the next one is evaluated
def noisy(v):
    print 'eval', v,
    return v
print 'start', noisy(1), noisy(2)
print 'x',
print noisy('y')
