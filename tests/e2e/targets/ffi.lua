-- LuaJIT through its FFI (tests/e2e/inject-luajit.sh): a loop the JIT
-- compiles calling ffiwork(), every 100th step a Lua callback called from
-- C (ffiapply) and an error caught by pcall.  Prints what it computed.
-- Usage: luajit ffi.lua LIBFFIWORK N
local ffi = require("ffi")
ffi.cdef[[
long ffiwork(long x);
long ffiapply(long (*cb)(long), long x);
]]
local lib = ffi.load(arg[1])
local n = tonumber(arg[2]) or 1000
local cb = ffi.cast("long (*)(long)", function(x) return x + 1 end)
local sum, applied, caught = 0, 0, 0
for i = 1, n do
  sum = sum + tonumber(lib.ffiwork(i))
  if i % 100 == 0 then
    applied = applied + tonumber(lib.ffiapply(cb, i))
    if not pcall(error, "boom " .. i) then caught = caught + 1 end
  end
end
cb:free()
print(string.format("calls %d sum %d applied %d caught %d", n, sum, applied, caught))
