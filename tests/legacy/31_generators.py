# generators: .next(), send, yield as an expression
def gen(n):
    for i in xrange(n):
        yield i * i
g = gen(3)
print g.next(), g.next()
print list(gen(4))
def acc():
    total = 0
    while True:
        v = (yield total)
        total += v
a = acc()
a.next()
print a.send(5), a.send(2)
it = iter([10, 20])
print it.next(), next(it)
