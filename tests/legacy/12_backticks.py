# `expr` is repr(expr)
x = [1, 'b']
print `1 + 2`, `'a'`
print `x`
print `1, 2`
print len(`10`)
