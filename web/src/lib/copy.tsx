/**
 * @module
 * A read-only value with a Copy button (the Clipboard API; on failure the text is selected for a manual
 * copy).
 */
import { useRef, useState } from 'preact/hooks'

export function CopyField(props: { value: string; label: string; multiline?: boolean; testid?: string }) {
  const ref = useRef<HTMLInputElement & HTMLTextAreaElement>(null)
  const [copied, setCopied] = useState(false)
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(props.value)
      setCopied(true)
    } catch {
      ref.current?.select()
    }
  }
  return (
    <div class="copy">
      <span class="label">{props.label}</span>
      {props.multiline ? (
        <textarea ref={ref} readOnly rows={4} value={props.value} data-testid={props.testid} />
      ) : (
        <input ref={ref} readOnly value={props.value} data-testid={props.testid} />
      )}
      <button type="button" onClick={copy}>
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  )
}
