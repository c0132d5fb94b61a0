# cmp, sort(cmp=...), sorted(cmp=...), positional cmp
print cmp(1, 2), cmp(2, 2), cmp('b', 'a')
l = [3, 1, 2]
l.sort(cmp=lambda a, b: cmp(b, a))
print l
l.sort(lambda a, b: cmp(a, b))
print l
print sorted([3, 1, 2], cmp=lambda a, b: a - b)
print sorted(['bb', 'a', 'ccc'], key=len, reverse=True)
words = ['Banana', 'apple', 'cherry']
words.sort(key=str.lower)
print words
print sorted([(1, 'b'), (1, 'a')], cmp=lambda x, y: cmp(x[1], y[1]))
