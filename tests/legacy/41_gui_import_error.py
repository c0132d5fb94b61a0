# Tkinter is not available: a clear ImportError
try:
    import Tkinter
except ImportError, e:
    print 'no GUI:', 'Tkinter' in str(e)
