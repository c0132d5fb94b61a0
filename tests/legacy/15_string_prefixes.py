# ur'' processes only \u escapes; plain strings keep \u as two characters; b'' is str
print ur"\u0062\n"
print len(ur"\u0062\n")
print '\u0041', len('\u0041')
print u'\u0041'
print r'a\b', len(r'\n')
print b'bytes', BR'x\y'
print 'tab\there'
