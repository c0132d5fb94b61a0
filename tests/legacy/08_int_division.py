# classic division: floor for two integers, true division as soon as a float is involved
print 7 / 2, -7 / 2, 7 / -2, -7 / -2
print 6 / 3, 0 / 5, 1 / 3
print 7.0 / 2, 7 / 2.0, -7 / 2.0
print 7 // 2, 7.0 // 2, -7 // 2
print 10L / 4, True / 2
print 2 ** -1, 9 % 4, divmod(9, 4)
