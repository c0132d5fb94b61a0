# else clauses of while/for/try, try/finally with a trailing-comma print
n = 0
while n < 3:
    n += 1
else:
    print 'while done', n
for i in []:
    pass
else:
    print 'for else'
try:
    print 'try',
finally:
    print 'finally'
try:
    x = 1 / 1
except ZeroDivisionError:
    print 'no'
else:
    print 'else', x
