from __future__ import division
# with the future import, / is true division (and // stays floor division)
print 7 / 2, 7 // 2
x = 9
x /= 2
print x
