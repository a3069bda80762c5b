import type { ComponentChildren } from 'preact'
import { createContext } from 'preact'
import { useCallback, useContext, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { ApiProblem, api } from './api.js'
import type { Operator } from '../../src/routes/admin/records.js'
import { formatScore } from '../../sdk/format.js'
import { scoreFormatOf, type DisplaySettings } from '../../src/rules/score-format.js'

/** Who is signed in: the token's name and role. A viewer's write controls are disabled. */
export type { Operator }
export const OperatorContext = createContext<Operator>({ name: '', role: 'viewer' })
export const useOperator = (): Operator => useContext(OperatorContext)
export const VIEWER_NOTE = 'A viewer token can look but not change anything.'

/** An error as a sentence, in a live region so screen readers hear it. */
export function Problem ({ text }: { text: string | null }) {
  if (text === null) return null
  return <p class='problem' role='alert'>{text}</p>
}

export function Notice ({ text }: { text: string | null }) {
  return <p class='notice' role='status' aria-live='polite'>{text ?? ''}</p>
}

const sentence = (error: unknown): string => error instanceof ApiProblem ? error.message : 'Something went wrong in the console: reload the page.'

/**
 * Data read from the API: `reload` reads it again. While loading, `data`
 * keeps what was there, so pages do not flicker.
 */
export function useRead<T> (read: () => Promise<T>, deps: unknown[]): { data: T | undefined, problem: string | null, loading: boolean, reload: () => void } {
  const [data, setData] = useState<T | undefined>(undefined)
  const [problem, setProblem] = useState<string | null>(null)
  const [loading, setLoading] = useState(true)
  const [turn, setTurn] = useState(0)
  useEffect(() => {
    let current = true
    setLoading(true)
    read().then(result => {
      if (!current) return
      setData(result)
      setProblem(null)
    }, (error: unknown) => {
      if (current) setProblem(sentence(error))
    }).finally(() => { if (current) setLoading(false) })
    return () => { current = false }
  }, [...deps, turn])
  return { data, problem, loading, reload: useCallback(() => { setTurn(n => n + 1) }, []) }
}

/**
 * A listing with cursors (docs/interface.md#listings): the first page read
 * whenever `deps` change (`first`: its whole answer), and `more` appending
 * the next one. A page that fails says so like any read.
 */
export function usePaged<T, Extra = object> (pageUrl: (cursor: string | null) => string, deps: unknown[]): { items: T[], first: (Extra & { items: T[] }) | undefined, cursor: string | null, more: () => void, problem: string | null, loading: boolean, reload: () => void } {
  const [items, setItems] = useState<T[]>([])
  const [cursor, setCursor] = useState<string | null>(null)
  const [moreProblem, setMoreProblem] = useState<string | null>(null)
  const first = useRead(async () => {
    const page = await api<Extra & { items: T[], next_cursor: string | null }>('GET', pageUrl(null))
    setItems(page.items)
    setCursor(page.next_cursor)
    setMoreProblem(null)
    return page
  }, deps)
  const more = (): void => {
    api<{ items: T[], next_cursor: string | null }>('GET', pageUrl(cursor)).then(page => {
      setItems(previous => [...previous, ...page.items])
      setCursor(page.next_cursor)
    }, (error: unknown) => { setMoreProblem(sentence(error)) })
  }
  return { items, first: first.data, cursor, more, problem: first.problem ?? moreProblem, loading: first.loading, reload: first.reload }
}

/**
 * A write: `run` calls the API, then says what happened (`done`) or why it
 * failed. Disabled for a viewer.
 */
export function useWrite (): { busy: boolean, problem: string | null, notice: string | null, run: (work: () => Promise<unknown>, done: string) => Promise<boolean>, clear: () => void } {
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const run = async (work: () => Promise<unknown>, done: string): Promise<boolean> => {
    setBusy(true)
    setProblem(null)
    setNotice(null)
    try {
      await work()
      setNotice(done)
      return true
    } catch (error) {
      setProblem(sentence(error))
      return false
    } finally {
      setBusy(false)
    }
  }
  return { busy, problem, notice, run, clear: () => { setProblem(null); setNotice(null) } }
}

/** A button that changes something: disabled (with the reason) for a viewer, and while busy. */
export function WriteButton ({ children, onClick, busy = false, kind = 'primary', type = 'button', label }: { children: ComponentChildren, onClick?: () => void, busy?: boolean, kind?: 'primary' | 'secondary' | 'danger', type?: 'button' | 'submit', label?: string }) {
  const { role } = useOperator()
  const viewer = role === 'viewer'
  return (
    <button type={type} class={`button ${kind}`} disabled={viewer || busy} title={viewer ? VIEWER_NOTE : undefined} aria-label={label} onClick={onClick}>
      {children}
    </button>
  )
}

/** A score as its board shows it (docs/interface.md#score-formats), in the operator's locale: the game's own board's format, or a named board's. */
export function shownScore (score: number | null | undefined, board: DisplaySettings): string {
  return score === null || score === undefined ? '' : formatScore(score, scoreFormatOf(board))
}

/**
 * A score as an operator types it, back to the integer the board stores: on
 * a time board, as the board shows times ("1:23.456", "1:02:03", "83.5":
 * seconds) to ms, and a bare whole number as ms already; on others, the
 * stored integer. NaN when the text is neither.
 */
export function typedScore (text: string, board: DisplaySettings): number {
  const typed = text.trim()
  if (board.score_format !== 'time' || /^-?\d+$/.test(typed)) return typed === '' ? NaN : Number(typed)
  const parts = /^(-?)(?:(?:(\d+):)?(\d+):)?(\d+)(?:[.,](\d{1,3}))?$/.exec(typed)
  if (parts === null) return NaN
  const [, sign, hours = '0', minutes = '0', seconds = '0', fraction = ''] = parts
  const ms = ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000 + Number(fraction.padEnd(3, '0'))
  return sign === '-' ? -ms : ms
}

/** A score in a field for the operator to change: a time to the millisecond and without its unit, so typedScore reads back the same ms; others as stored. */
export function editableScore (score: number, board: DisplaySettings): string {
  return board.score_format === 'time' ? formatScore(score, { type: 'time', decimals: 3, unit: '' }) : String(score)
}

/** A count and its noun, singular for one: "1 rating", "3 ratings". */
export function counted (count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`
}

/** A label and its control, one field of a form; `long`: two columns of a form's grid, for a select whose options are longer than one. */
export function Field ({ label, hint, children, id, long = false }: { label: string, hint?: string, children: ComponentChildren, id: string, long?: boolean }) {
  return (
    <div class={long ? 'field long' : 'field'}>
      <label for={id}>{label}</label>
      {children}
      {hint !== undefined && <small id={`${id}-hint`} class='hint'>{hint}</small>}
    </div>
  )
}

export function formatSeconds (seconds: number): string {
  if (seconds < 60) return `${seconds} s`
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`
  return `${(seconds / 3600).toFixed(seconds < 36_000 ? 1 : 0)} h`
}

export function formatTime (iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return '—'
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
}

/**
 * A moment in a table's column: its date and its time with its time zone
 * ("Nov 27, 2026 12:55 PM UTC"), each kept whole, so it takes one line, or
 * two on a narrow screen. Its datetime is the full time, to the
 * millisecond, for machines; on hover it shows the time in UTC to the
 * second, saying so ("Nov 27, 2026, 12:55:02 PM UTC").
 */
export function When ({ iso }: { iso: string }) {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return <>{iso}</>
  return (
    <time class='when' dateTime={date.toISOString()} title={date.toLocaleString(undefined, { timeZone: 'UTC', dateStyle: 'medium', timeStyle: 'long' })}>
      <span>{date.toLocaleDateString(undefined, { dateStyle: 'medium' })}</span> <span>{date.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit', timeZoneName: 'short' })}</span>
    </time>
  )
}

/**
 * The roles of a table's parts, set on them: its row groups, rows, column
 * and row headers and cells. A stacked table's parts are blocks and flex
 * boxes on a phone, and WebKit then drops the roles a table's elements have
 * of themselves, so a screen reader would read a card as loose text; with
 * the roles written out it is still a table. Only the table's own parts,
 * not those of a table inside a cell.
 */
export function giveTableRoles (table: HTMLTableElement): void {
  table.setAttribute('role', 'table')
  const roles: Array<[string, string]> = [
    [':scope > thead, :scope > tbody, :scope > tfoot', 'rowgroup'],
    [':scope > * > tr', 'row'],
    [':scope > thead > tr > th', 'columnheader'],
    [':scope > tbody > tr > th', 'rowheader'],
    [':scope > * > tr > td', 'cell']
  ]
  for (const [selector, role] of roles) {
    for (const part of Array.from(table.querySelectorAll(selector))) {
      if (part.getAttribute('role') !== role) part.setAttribute('role', role)
    }
  }
}

/**
 * A table that is a card per row on a phone (style.css, table.stacked):
 * its thead's column names are hidden there, each td says its own with
 * data-label. Its parts' roles are written out after every render, so the
 * rows a page has just drawn have them too (giveTableRoles).
 */
export function StackedTable ({ id, children }: { id?: string, children: ComponentChildren }) {
  const table = useRef<HTMLTableElement>(null)
  useLayoutEffect(() => { if (table.current !== null) giveTableRoles(table.current) })
  return <table ref={table} id={id} class='stacked' role='table'>{children}</table>
}

/** A wide table scrolls inside its own box on a phone, never the page. */
export function TableBox ({ children, label }: { children: ComponentChildren, label: string }) {
  return <div class='table-box' role='region' aria-label={label} tabIndex={0}>{children}</div>
}

/** "More" for a listing with cursors. */
export function More ({ paged }: { paged: { cursor: string | null, more: () => void, loading: boolean } }) {
  if (paged.cursor === null) return null
  return <button type='button' class='button secondary' disabled={paged.loading} onClick={paged.more}>More</button>
}

/**
 * A dialog that asks before something that cannot be undone: the browser's
 * modal <dialog>, which keeps the focus inside it, makes the page behind it
 * inert, and closes on Escape (as Cancel). The focus starts on Cancel.
 */
export function Confirm ({ open, title, children, confirm, onConfirm, onCancel, busy }: { open: boolean, title: string, children: ComponentChildren, confirm: string, onConfirm: () => void, onCancel: () => void, busy: boolean }) {
  const dialog = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const element = dialog.current
    if (element === null) return
    if (open && !element.open) element.showModal()
    if (!open && element.open) element.close()
  }, [open])
  return (
    <dialog ref={dialog} class='dialog' role='alertdialog' aria-labelledby='confirm-title' onCancel={event => { event.preventDefault(); onCancel() }}>
      {open && (
        <>
          <h2 id='confirm-title'>{title}</h2>
          {children}
          <div class='actions'>
            <button type='button' class='button secondary' onClick={onCancel} autoFocus>Cancel</button>
            <WriteButton kind='danger' busy={busy} onClick={onConfirm}>{confirm}</WriteButton>
          </div>
        </>
      )}
    </dialog>
  )
}
