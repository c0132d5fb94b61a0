# /= on names, list items, attributes, dict items, nested items
x = 7
x /= 2
print x
y = 7.0
y /= 2
print y
a = [9, 10, 11]
a[0] /= 2
a[1] /= 4.0
a[2 - 0] /= -2
print a
class Box:
    pass
b = Box()
b.n = 11
b.n /= 3
b.f = 1.0
b.f /= 4
print b.n, b.f
d = {'k': 5}
d['k'] /= 2
print d['k']
m = [[8, 9]]
m[0][1] /= 2
print m
s = [12, 13]
i = 0
s[i:i + 1][0] /= 5
print s
