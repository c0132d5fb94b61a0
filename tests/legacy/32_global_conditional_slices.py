# global, conditional expressions, extended slices
counter = 0
def bump():
    global counter
    counter += 1
bump(); bump()
print counter
print 'yes' if counter > 1 else 'no'
s = range(10)
print s[::3], s[1:8:2], s[::-4]
print 'hello'[::-1], 'abcdef'[1:-1:2]
t = (1, 2, 3)
print t[-1:], t[:0]
