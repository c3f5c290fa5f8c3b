;;; plk-mode.el --- Major mode for PipeLink .plk files  -*- lexical-binding: t; -*-

;; Keywords: languages
;; Package-Requires: ((emacs "26.1"))

;;; Commentary:

;; Highlighting, comments and indentation for PipeLink recipes and component
;; contracts (docs/language.md).  The name lists between the GENERATED markers
;; come from grammar/lexer.re and stdlib/*.def: regenerate them with
;; `python3 tests/editors/plkref.py sync'.
;;
;; Compile with M-x compile and `plkc --diagnostics-format=short FILE': the
;; `plkc' entry added to `compilation-error-regexp-alist-alist' picks up
;; `file:line:col: error[E0101]: message' lines.

;;; Code:

(defvar compilation-error-regexp-alist)
(defvar compilation-error-regexp-alist-alist)

(defgroup plk nil
  "PipeLink .plk files."
  :group 'languages)

(defcustom plk-indent-offset 2
  "Indentation of one nesting level of { ( [ in `plk-mode'."
  :type 'integer
  :safe #'integerp)

(defface plk-number-face '((t :inherit font-lock-constant-face))
  "Face for integer literals and their size suffix.")
(defface plk-arrow-face '((t :inherit font-lock-keyword-face :weight bold))
  "Face for the dataflow operator `->'.")
(defface plk-port-face '((t :inherit font-lock-builtin-face))
  "Face for the port of an instance in a connection: the `ab' of `load.ab'.")
(defface plk-escape-face '((t :inherit font-lock-regexp-grouping-backslash))
  "Face for escapes in strings.")

;; BEGIN GENERATED
(defconst plk-keywords
  '("ahead" "align" "arch" "barrier" "buffer" "bytes" "cluster" "component" "const" "early" "else" "engine" "entry" "for" "grid" "handoff" "hook" "in" "kernel" "live" "megakernel" "merge" "needs" "object" "op" "out" "param" "per" "prologue" "raster" "regs" "require" "select" "smem" "source" "split" "use" "warpgroups" "warps" "when" "zeroed")
  "Keywords of the lexer.")
(defconst plk-type-keywords
  '("frag" "ptr" "tensor" "tensormap" "tile")
  "Keywords that build types.")
(defconst plk-operator-keywords
  '("x")
  "Keywords that are operators.")
(defconst plk-constant-keywords
  '("auto")
  "Keywords that are values.")
(defconst plk-dtypes
  '("bf16" "e2m1" "e4m3" "e5m2" "f16" "f32" "f64" "i16" "i32" "i64" "i8" "tf32" "u32" "u64" "u8")
  "Element types of stdlib/dtype.def.")
(defconst plk-layouts
  '("mma_a" "mma_acc" "mma_b" "none" "sw128" "sw32" "sw64" "wgmma_a" "wgmma_acc")
  "Swizzles and fragment layouts of stdlib/layout.def.")
(defconst plk-features
  '("clusters" "cp_async" "mma_sync" "setmaxnreg" "tcgen05" "tma" "tmem" "wgmma")
  "Arch features of stdlib/feature.def.")
;; END GENERATED

(defconst plk--ident "[A-Za-z_][A-Za-z0-9_]*")

(defun plk--words (words)
  "A regexp matching any of WORDS as a whole symbol."
  (concat "\\_<" (regexp-opt words t) "\\_>"))

(defun plk--in-string-p ()
  "Non-nil if the current match starts inside a string (point and match data kept)."
  (save-match-data (save-excursion (nth 3 (syntax-ppss (match-beginning 0))))))

(defconst plk-font-lock-keywords
  `(;; Declarations: `component NAME', `kernel NAME', `select NAME'.
    (,(concat "\\_<\\(component\\)[ \t]+\\(" plk--ident "\\)")
     (1 font-lock-keyword-face) (2 font-lock-type-face))
    (,(concat "\\_<\\(kernel\\|select\\)[ \t]+\\(" plk--ident "\\)")
     (1 font-lock-keyword-face) (2 font-lock-function-name-face))
    ;; An instance definition: `load = tma_load_ab(...)'.
    (,(concat "^[ \t]*\\(" plk--ident "\\)[ \t]*=[ \t]*\\(" plk--ident "\\)[ \t]*(")
     (1 font-lock-variable-name-face) (2 font-lock-type-face))
    ;; A port of an instance in a connection: `load.ab -> mma.ab'.
    (,(concat "\\_<\\(" plk--ident "\\)[ \t]*\\.[ \t]*\\(" plk--ident "\\)\\_>")
     (1 font-lock-variable-name-face) (2 'plk-port-face))
    ("->" . 'plk-arrow-face)
    (,(plk--words plk-keywords) . font-lock-keyword-face)
    (,(plk--words plk-type-keywords) . font-lock-type-face)
    (,(plk--words plk-operator-keywords) . font-lock-keyword-face)
    (,(plk--words plk-constant-keywords) . font-lock-constant-face)
    ("\\_<sm_[0-9]+a?\\_>" . font-lock-constant-face)
    (,(plk--words plk-dtypes) . font-lock-type-face)
    (,(plk--words plk-layouts) . font-lock-type-face)
    (,(plk--words plk-features) . font-lock-builtin-face)
    ("\\_<\\(?:0[xX][0-9A-Fa-f_]+\\|0[bB][01_]+\\|[0-9][0-9_]*\\(?:KiB\\|MiB\\|K\\|M\\)?\\)\\_>"
     . 'plk-number-face)
    ("\\_<[0-9][A-Za-z0-9_]*" . font-lock-warning-face)
    ;; Escapes inside strings (the string face is already there: prepend).
    ("\\\\[\"\\\\nt]" 0 (when (plk--in-string-p) 'plk-escape-face) prepend)
    ("\\\\." 0 (when (plk--in-string-p) 'font-lock-warning-face) prepend))
  "Font-lock rules of `plk-mode'.")

(defvar plk-mode-syntax-table
  (let ((st (make-syntax-table)))
    (modify-syntax-entry ?_ "_" st)
    (modify-syntax-entry ?/ ". 124b" st)
    (modify-syntax-entry ?* ". 23" st)
    (modify-syntax-entry ?\n "> b" st)
    (modify-syntax-entry ?\" "\"" st)
    (modify-syntax-entry ?\\ "\\" st)
    (modify-syntax-entry ?< "." st)
    (modify-syntax-entry ?> "." st)
    (dolist (c '(?+ ?- ?% ?= ?. ?, ?: ?\;))
      (modify-syntax-entry c "." st))
    st)
  "Syntax table of `plk-mode': C-style comments that do not nest.")

(defun plk--line-depth ()
  "Nesting depth of { ( [ at the start of the current line."
  (save-excursion (car (syntax-ppss (line-beginning-position)))))

(defun plk-indent-line ()
  "Indent the current line: one `plk-indent-offset' per open { ( [."
  (interactive)
  (let* ((ppss (save-excursion (syntax-ppss (line-beginning-position))))
         (depth (car ppss))
         (closer (save-excursion
                   (back-to-indentation)
                   (looking-at-p "[])}]")))
         (col (* plk-indent-offset (max 0 (if closer (1- depth) depth))))
         (in-comment (nth 4 ppss)))
    (unless in-comment
      (if (<= (current-column) (current-indentation))
          (indent-line-to col)
        (save-excursion (indent-line-to col))))))

;;;###autoload
(define-derived-mode plk-mode prog-mode "PipeLink"
  "Major mode for PipeLink .plk recipes and component contracts."
  :syntax-table plk-mode-syntax-table
  (setq-local comment-start "// ")
  (setq-local comment-end "")
  (setq-local comment-start-skip "\\(?://+\\|/\\*+\\)\\s-*")
  (setq-local comment-multi-line nil)
  (setq-local indent-line-function #'plk-indent-line)
  (setq-local indent-tabs-mode nil)
  (setq-local font-lock-defaults '(plk-font-lock-keywords nil nil)))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.plk\\'" . plk-mode))

(with-eval-after-load 'compile
  (add-to-list 'compilation-error-regexp-alist-alist
               '(plkc "^\\([^:\n]+\\):\\([0-9]+\\):\\([0-9]+\\): \\(?:error\\|\\(warning\\)\\|\\(note\\|help\\)\\)"
                      1 2 3 (4 . 5)))
  (add-to-list 'compilation-error-regexp-alist 'plkc))

(provide 'plk-mode)
;;; plk-mode.el ends here
