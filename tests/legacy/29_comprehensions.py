# list/dict/set comprehensions, generator expressions, the old [x for x in 1, 2] form
print [x * x for x in range(4) if x % 2]
print [x for x in 1, 2, 3]
print [(i, j) for i in range(2) for j in range(2) if i <> j]
print {x: x * 2 for x in (1,)}
print sorted({x % 3 for x in range(10)})
print sum(x for x in range(5))
print [x / 2 for x in range(5)]
print dict((k, k / 2) for k in [4])
