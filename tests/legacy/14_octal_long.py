# classic octal literals and the long suffix
print 0777, 010 + 1, 00, 0
print 123L, 0x10L, 0L, 7l * 2
print 0o17, 0b101, 0xff
mode = 0644
print mode == 420, oct(mode)
