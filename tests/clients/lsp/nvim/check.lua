-- Run after init.lua with a file of the repository open: waits for Stanley's diagnostics, asks
-- for the hover and the code actions as `K` and `vim.lsp.buf.code_action()` would, and writes
-- what it saw as JSON to $STANLEY_NVIM_OUT, then quits.
local out = {}
local function finish()
  local f = io.open(os.getenv("STANLEY_NVIM_OUT"), "w")
  f:write(vim.fn.json_encode(out))
  f:close()
  for _, client in pairs(vim.lsp.get_active_clients()) do
    client.stop()
  end
  vim.wait(10000, function()
    return #vim.lsp.get_active_clients() == 0
  end, 50)
  vim.cmd("qa!")
end
local got = vim.wait(30000, function()
  return #vim.diagnostic.get(0) > 0
end, 50)
out.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out.diagnostics, { lnum = d.lnum, source = d.source, message = d.message, severity = d.severity })
end
if got then
  local d = vim.diagnostic.get(0)[1]
  local params = { textDocument = { uri = vim.uri_from_bufnr(0) }, position = { line = d.lnum, character = 0 } }
  local hover = vim.lsp.buf_request_sync(0, "textDocument/hover", params, 10000) or {}
  for _, r in pairs(hover) do
    if r.result then
      out.hover = r.result.contents.value
    end
  end
  local range = { start = { line = d.lnum, character = 0 }, ["end"] = { line = d.lnum, character = 0 } }
  local actions = vim.lsp.buf_request_sync(0, "textDocument/codeAction", {
    textDocument = { uri = vim.uri_from_bufnr(0) },
    range = range,
    context = { diagnostics = {} },
  }, 10000) or {}
  out.actions = {}
  for _, r in pairs(actions) do
    for _, a in ipairs(r.result or {}) do
      table.insert(out.actions, a.title)
    end
  end
end
finish()
