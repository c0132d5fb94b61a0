# list-returning map/filter/zip; map pads with None; filter keeps str and tuple types
print map(lambda x: x * 2, [1, 2, 3])
print map(str, [1, 2])
print map(None, [1, 2], [3])
print map(lambda a, b: a + b, [1, 2], [10, 20])
print filter(None, [0, 1, 2, 0, 3])
print filter(lambda c: c != 'a', 'banana')
print filter(lambda x: x > 1, (1, 2, 3))
print zip([1, 2], [3, 4])
print zip('ab', [1, 2, 3])
pairs = zip([1], [2])
pairs.append((5, 6))
print pairs
