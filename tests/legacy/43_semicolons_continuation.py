# several statements on a line, backslash continuation inside a print statement
print 'a',; print 'b'
x = 1; y = 2; print x + y
print 1, \
      2
total = (1 +
         2)
print total, \
    'ok'
if x: print 'inline if'
