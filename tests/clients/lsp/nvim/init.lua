-- Stanley's language server for every file of a Git repository (Neovim 0.7 or newer).
local stanley = {}
vim.api.nvim_create_autocmd("BufReadPost", {
  callback = function(args)
    local dir = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(args.buf), ":p:h")
    local git = vim.fn.finddir(".git", dir .. ";")
    if git == "" then
      git = vim.fn.findfile(".git", dir .. ";")
    end
    if git == "" then
      return
    end
    -- The folder holding `.git` (a folder, or a file in a linked worktree).
    local path = vim.fn.fnamemodify(git, ":p"):gsub("/$", "")
    local root = vim.fn.fnamemodify(path, ":h")
    stanley[root] = stanley[root] or vim.lsp.start_client({
      name = "stanley",
      cmd = { "stanleyctl", "lsp" },
      cmd_cwd = root,
      root_dir = root,
    })
    vim.lsp.buf_attach_client(args.buf, stanley[root])
  end,
})
