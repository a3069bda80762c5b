import { useState } from 'preact/hooks'
import { api, withQuery } from '../api.js'
import { Confirm, Field, More, Notice, Problem, StackedTable, TableBox, WriteButton, formatTime, usePaged, useWrite } from '../ui.js'
import type { User } from '../../../src/routes/admin/records.js'

type Erased = Record<string, number>

/** How a user signs in, in a few words: a password, a platform's signed token or OpenID provider (by its issuer), a guest's session, or sessions an operator makes. */
function signInOf (user: User): string {
  if (user.guest) return 'guest session'
  const ways = user.sign_in.map(way => way.method === 'password' ? 'password' : `${way.method === 'token' ? 'signed token' : 'OpenID'} (${way.issuer.replace(/^https?:\/\//, '')})`)
  return ways.length === 0 ? 'sessions made by an operator' : ways.join(', ')
}

/** The platform's users: create one, hide one on every board, make one an administrator, erase one. */
export function UsersPage () {
  const [prefix, setPrefix] = useState('')
  const [guests, setGuests] = useState<'' | 'true' | 'false'>('')
  const list = usePaged<User>(cursor => withQuery('/admin/users', { prefix, limit: 50, cursor, ...(guests === '' ? {} : { guest: guests }) }), [prefix, guests])
  const users = list.items
  const write = useWrite()
  const [erasing, setErasing] = useState<User | null>(null)
  const [typed, setTyped] = useState('')

  async function change (user: User, changes: Partial<User>, done: string): Promise<void> {
    if (await write.run(async () => await api('PATCH', `/admin/users/${encodeURIComponent(user.username)}`, changes), done)) list.reload()
  }
  async function erase (user: User): Promise<void> {
    let erased: Erased = {}
    const ok = await write.run(async () => { erased = await api<Erased>('DELETE', withQuery(`/admin/users/${encodeURIComponent(user.username)}`, { erase: true })) }, '')
    if (ok) {
      const parts = Object.entries(erased).filter(([, count]) => count > 0).map(([what, count]) => `${count} ${what.replace(/_/g, ' ')}`)
      await write.run(async () => {}, `${user.username} is erased everywhere${parts.length === 0 ? '' : `: ${parts.join(', ')}`}.`)
      list.reload()
    }
    setErasing(null)
    setTyped('')
  }

  return (
    <>
      <h1>Users</h1>
      <CreateUser onCreated={list.reload} />
      <section aria-labelledby='all-users'>
        <div class='section-head'>
          <h2 id='all-users'>All users</h2>
          <label class='inline' for='user-filter'>Username begins with</label>
          <input id='user-filter' type='search' maxLength={30} value={prefix} onChange={event => { setPrefix(event.currentTarget.value.trim()) }} />
          <label class='inline' for='user-guests'>Show</label>
          <select id='user-guests' value={guests} onChange={event => { setGuests(event.currentTarget.value as '' | 'true' | 'false') }}>
            <option value=''>everyone</option>
            <option value='false'>accounts only</option>
            <option value='true'>guests only</option>
          </select>
        </div>
        <Problem text={list.problem ?? write.problem} />
        <Notice text={write.notice} />
        {users.length === 0 && !list.loading && list.problem === null && <p>No users{prefix === '' ? ' yet' : ' with that prefix'}.</p>}
        {users.length > 0 && (
          // Stacked: on a phone each user is a card, its buttons under its cells rather than pinned over them.
          <TableBox label='Users'>
            <StackedTable id='users-table'>
              <thead><tr><th scope='col'>User</th><th scope='col'>Since</th><th scope='col'>Signs in with</th><th scope='col'>Flags</th><th scope='col'><span class='visually-hidden'>Actions</span></th></tr></thead>
              <tbody>
                {users.map(user => (
                  <tr key={user.username}>
                    <th scope='row'>{user.username}</th>
                    <td data-label='Since'>{formatTime(user.created_at)}</td>
                    <td data-label='Signs in with' title={user.sign_in.filter(way => way.method !== 'password').map(way => 'subject' in way ? `subject ${way.subject}` : '').join(', ')}>{signInOf(user)}</td>
                    {/* A space between badges, so two are read as two words; "none" for a user without any, so no cell is empty (a screen reader would put the next one under this column's name). */}
                    <td data-label='Flags'>{!user.is_admin && !user.hidden && !user.guest && <span class='muted'>none</span>}{user.is_admin && <span class='badge ok'>admin</span>} {user.hidden && <span class='badge waiting'>hidden</span>} {user.guest && <span class='badge' title={`Erased ${formatTime(user.guest_until ?? '')} unless it signs up`}>guest</span>}</td>
                    <td class='row-actions'>
                      <WriteButton kind='secondary' busy={write.busy} onClick={() => { void change(user, { hidden: !user.hidden }, `${user.username} is ${user.hidden ? 'shown again' : 'hidden'} on every board.`) }} label={`${user.hidden ? 'Show' : 'Hide'} ${user.username}`}>{user.hidden ? 'Show' : 'Hide'}</WriteButton>
                      <WriteButton kind='secondary' busy={write.busy} onClick={() => { void change(user, { is_admin: !user.is_admin }, `${user.username} is ${user.is_admin ? 'no longer' : 'now'} an administrator.`) }} label={`${user.is_admin ? 'Remove admin from' : 'Make admin'} ${user.username}`}>{user.is_admin ? 'Remove admin' : 'Make admin'}</WriteButton>
                      <WriteButton kind='danger' busy={write.busy} onClick={() => { setErasing(user) }} label={`Erase ${user.username}`}>Erase</WriteButton>
                    </td>
                  </tr>
                ))}
              </tbody>
            </StackedTable>
          </TableBox>
        )}
        <More paged={list} />
      </section>
      <Confirm open={erasing !== null} title={`Erase ${erasing?.username ?? ''} everywhere?`} confirm='Erase for good' busy={write.busy || typed !== erasing?.username} onCancel={() => { setErasing(null); setTyped('') }} onConfirm={() => { void erase(erasing!) }}>
        <p>The user, their sessions, and their entries, ratings and play time in every game are deleted. This cannot be undone.</p>
        <label for='erase-confirm'>Type <strong>{erasing?.username}</strong> to confirm</label>
        <input id='erase-confirm' value={typed} autoComplete='off' onInput={event => { setTyped(event.currentTarget.value) }} />
      </Confirm>
    </>
  )
}

function CreateUser ({ onCreated }: { onCreated: () => void }) {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const [isAdmin, setIsAdmin] = useState(false)
  const write = useWrite()
  async function create (event: Event): Promise<void> {
    event.preventDefault()
    const body = { username: username.trim(), is_admin: isAdmin, ...(password === '' ? {} : { password }) }
    if (await write.run(async () => await api('POST', '/admin/users', body), `User ${body.username} created.`)) {
      setUsername('')
      setPassword('')
      onCreated()
    }
  }
  return (
    <details class='card'>
      <summary>Create a user</summary>
      <form class='form-grid' onSubmit={create}>
        <Field id='new-username' label='Username' hint='1 to 30 characters: letters, digits, _ . and -.'>
          <input id='new-username' required maxLength={30} pattern='[A-Za-z0-9_.\-]+' autoComplete='off' value={username} onInput={event => { setUsername(event.currentTarget.value) }} aria-describedby='new-username-hint' />
        </Field>
        <Field id='new-password' label='Password (optional)' hint='Without one the user cannot log in until an operator sets one.'>
          <input id='new-password' type='password' autoComplete='new-password' maxLength={1024} value={password} onInput={event => { setPassword(event.currentTarget.value) }} aria-describedby='new-password-hint' />
        </Field>
        <div class='field check'>
          <input id='new-user-admin' type='checkbox' checked={isAdmin} onChange={event => { setIsAdmin(event.currentTarget.checked) }} />
          <label for='new-user-admin'>Administrator</label>
        </div>
        <div class='actions'><WriteButton type='submit' busy={write.busy}>Create user</WriteButton></div>
        <Problem text={write.problem} />
        <Notice text={write.notice} />
      </form>
    </details>
  )
}
