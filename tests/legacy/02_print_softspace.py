# trailing comma: the next print item is preceded by a space ("softspace"), unless the
# last item written was a string ending in whitespace other than ' '
print "a",
print "b"
print "c\n",
print "d"
print "e ",
print "f"
print "g\t",
print "h"
print "",
print "i"
