;;; plk-mode-test.el --- ERT tests of editors/emacs/plk-mode.el  -*- lexical-binding: t; -*-

;; Run by tests/scripts/editors_emacs.sh:
;;   PLK_PROBES=probes.tsv emacs -Q --batch -l editors/emacs/plk-mode.el \
;;     -l tests/editors/plk-mode-test.el -f ert-run-tests-batch-and-exit
;; PLK_PROBES is written by `tests/editors/plkref.py probes': one token a
;; line, `file<TAB>line<TAB>col<TAB>class<TAB>text'.

;;; Code:

(require 'ert)
(require 'compile)
(require 'plk-mode)

(defconst plk-test-faces
  '((keyword font-lock-keyword-face) (typekw font-lock-type-face)
    (shapeop font-lock-keyword-face) (auto font-lock-constant-face)
    (compname font-lock-type-face) (kernelname font-lock-function-name-face)
    (dtype font-lock-type-face) (layout font-lock-type-face)
    (feature font-lock-builtin-face) (arch font-lock-constant-face)
    (number plk-number-face) (unit plk-number-face) (badnumber font-lock-warning-face)
    (string font-lock-string-face) (escape plk-escape-face)
    (badescape font-lock-warning-face)
    (comment font-lock-comment-face font-lock-comment-delimiter-face)
    (arrow plk-arrow-face) (instance font-lock-variable-name-face) (port plk-port-face)
    (instdef font-lock-variable-name-face) (compref font-lock-type-face)
    (ident) (operator))
  "Probe class -> the faces that may stand there (nil: none).")

(defconst plk-test-root
  (expand-file-name "../.." (file-name-directory (or load-file-name buffer-file-name))))

(defun plk-test-buffer (file)
  "A fontified `plk-mode' buffer visiting FILE."
  (let ((buf (find-file-noselect (expand-file-name file plk-test-root))))
    (with-current-buffer buf
      (unless (eq major-mode 'plk-mode) (error "%s opened in %s" file major-mode))
      (font-lock-mode 1)
      (font-lock-ensure))
    buf))

(defun plk-test-faces-at (buf line col)
  (with-current-buffer buf
    (save-excursion
      (goto-char (point-min))
      (forward-line (1- line))
      (forward-char (1- col))
      (let ((f (get-text-property (point) 'face)))
        (delq nil (if (listp f) (copy-sequence f) (list f)))))))

(ert-deftest plk-probes ()
  "The face at every probe is one its class calls for."
  (let ((file (getenv "PLK_PROBES")) (n 0) (bad nil))
    (should file)
    (with-temp-buffer
      (insert-file-contents file)
      (dolist (row (split-string (buffer-string) "\n" t))
        (let* ((f (split-string row "\t"))
               (cls (intern (nth 3 f)))
               (want (assq cls plk-test-faces))
               (got (plk-test-faces-at (plk-test-buffer (nth 0 f))
                                       (string-to-number (nth 1 f))
                                       (string-to-number (nth 2 f)))))
          (setq n (1+ n))
          (unless (and want (if (cdr want) (seq-intersection got (cdr want)) (null got)))
            (push (format "%s:%s:%s: %S is %s: want %S, got %S"
                          (nth 0 f) (nth 1 f) (nth 2 f) (nth 4 f) cls (cdr want) got)
                  bad)))))
    (message "plk-probes: %d probes, %d wrong" n (length bad))
    (dolist (b (reverse bad)) (message "%s" b))
    (when bad
      (message "(a lexer keyword or stdlib name missing? `python3 tests/editors/plkref.py sync' updates the editor files)"))
    (should (> n 0))
    (should (equal (nreverse bad) nil))))

(ert-deftest plk-auto-mode ()
  (should (eq (assoc-default "dir/gemm.plk" auto-mode-alist #'string-match) 'plk-mode)))

(ert-deftest plk-comments ()
  (with-temp-buffer
    (plk-mode)
    (insert "warps 1")
    (comment-region (point-min) (point-max))
    (should (equal (buffer-string) "// warps 1"))
    (erase-buffer)
    (insert "a /* b\n c */ d // e\n")
    (should (nth 4 (syntax-ppss 6)))          ; inside the block comment
    (should-not (nth 4 (syntax-ppss 14)))     ; d
    (should (nth 4 (syntax-ppss 18)))))       ; e

(ert-deftest plk-indent ()
  "Reindenting a flattened sample gives the sample back."
  (let* ((file (expand-file-name "tests/editors/samples/sample_gemm.plk" plk-test-root))
         (orig (with-temp-buffer (insert-file-contents file) (buffer-string))))
    (with-temp-buffer
      (insert orig)
      (plk-mode)
      (goto-char (point-min))
      (while (re-search-forward "^[ \t]+" nil t) (replace-match ""))
      (indent-region (point-min) (point-max))
      (should (equal (buffer-string) orig)))))

(ert-deftest plk-compilation-errors ()
  "plkc --diagnostics-format=short lines are compilation errors."
  (with-temp-buffer
    (insert "gemm.plk:8:13: error[E0301]: unknown arch `sm_91`\n"
            "   |\n"
            "gemm.plk:2:1: warning[W0001]: unused component\n")
    (compilation-mode)
    (let ((compilation-error-regexp-alist '(plkc)))
      (font-lock-ensure)
      (goto-char (point-min))
      (let ((msg (compilation-next-error 1 nil (point-min))))
        (should msg)))
    (let ((re (nth 1 (assq 'plkc compilation-error-regexp-alist-alist))))
      (should (string-match re "gemm.plk:8:13: error[E0301]: unknown arch"))
      (should (equal (match-string 1 "gemm.plk:8:13: error[E0301]: unknown arch") "gemm.plk"))
      (should (string-match re "a.plk:2:1: warning[W0001]: x"))
      (should (match-beginning 4)))))

;;; plk-mode-test.el ends here
