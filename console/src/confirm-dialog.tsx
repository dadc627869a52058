import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A modal question with a confirm and a cancel button. The browser's `<dialog>` keeps focus
 * inside, and Escape cancels; focus starts on Cancel (the safe answer) and goes back to what
 * opened the dialog when it closes.
 */
export function ConfirmDialog({
  open,
  title,
  confirmText,
  onConfirm,
  onCancel,
  children,
}: {
  open: boolean;
  title: string;
  confirmText: string;
  onConfirm: () => void;
  onCancel: () => void;
  children: ComponentChildren;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const opener = useRef<Element | null>(null);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) {
      opener.current = document.activeElement;
      element.showModal();
      cancel.current?.focus();
    } else if (!open && element.open) {
      element.close();
    }
  }, [open]);

  const restoreFocus = () => {
    const previous = opener.current;
    if (previous instanceof HTMLElement) previous.focus();
  };

  return (
    <dialog
      ref={dialog}
      class="confirm"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-text"
      onCancel={(event) => {
        // Escape: closed by us so that the state and the focus follow.
        event.preventDefault();
        onCancel();
        restoreFocus();
      }}
    >
      <h2 id="confirm-title">{title}</h2>
      <p id="confirm-text">{children}</p>
      <div class="actions">
        <button
          type="button"
          ref={cancel}
          class="secondary"
          onClick={() => {
            onCancel();
            restoreFocus();
          }}
        >
          Cancel
        </button>
        <button type="button" class="danger" onClick={onConfirm}>
          {confirmText}
        </button>
      </div>
    </dialog>
  );
}
