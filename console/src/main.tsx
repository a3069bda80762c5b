import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ApiProblem, api, forgetToken, saveToken, savedToken } from './api.js'
import { OperatorContext, Problem, type Operator } from './ui.js'
import { GamesPage } from './pages/games.js'
import { GamePage } from './pages/game.js'
import { UsersPage } from './pages/users.js'
import { AuditPage } from './pages/audit.js'
import './style.css'

/** The page the hash names: #/games, #/games/<id>/<tab>, #/games/<id>/board/<board id>, #/users, #/audit. */
function useRoute (): string[] {
  const read = (): string[] => location.hash.replace(/^#\/?/, '').split('/').filter(part => part !== '').map(part => decodeURIComponent(part))
  const [route, setRoute] = useState(read)
  useEffect(() => {
    const onChange = (): void => { setRoute(read()) }
    window.addEventListener('hashchange', onChange)
    return () => { window.removeEventListener('hashchange', onChange) }
  }, [])
  return route
}

function SignIn ({ onSignedIn, problem: initial }: { onSignedIn: (operator: Operator) => void, problem: string | null }) {
  const [token, setToken] = useState('')
  const [problem, setProblem] = useState<string | null>(initial)
  const [busy, setBusy] = useState(false)
  async function submit (event: Event): Promise<void> {
    event.preventDefault()
    setBusy(true)
    try {
      const operator = await api<Operator>('GET', '/admin/whoami', undefined, token.trim())
      saveToken(token.trim())
      onSignedIn(operator)
    } catch (error) {
      setProblem(error instanceof ApiProblem && error.code === 'unauthorized' ? 'That token is not one of this service\'s operator tokens (ADMIN_TOKEN, ADMIN_TOKENS).' : error instanceof Error ? error.message : String(error))
    } finally {
      setBusy(false)
    }
  }
  return (
    <main class='sign-in'>
      <h1>Ranking console</h1>
      <form onSubmit={submit} class='card'>
        <label for='token'>Operator token</label>
        <input id='token' name='token' type='password' autoComplete='off' spellcheck={false} required value={token} onInput={event => { setToken(event.currentTarget.value) }} aria-describedby='token-hint' />
        <small id='token-hint' class='hint'>ADMIN_TOKEN, or one of ADMIN_TOKENS. It is kept in this tab only, until you sign out or close it.</small>
        <Problem text={problem} />
        <button type='submit' class='button primary' disabled={busy || token.trim() === ''}>Sign in</button>
      </form>
    </main>
  )
}

function App () {
  const [operator, setOperator] = useState<Operator | null>(null)
  const [checking, setChecking] = useState(savedToken() !== null)
  const [problem, setProblem] = useState<string | null>(null)
  const route = useRoute()

  // A token kept in this tab from before a reload: still good?
  useEffect(() => {
    if (savedToken() === null) return
    api<Operator>('GET', '/admin/whoami').then(setOperator, (error: unknown) => {
      forgetToken()
      setProblem(error instanceof Error ? error.message : String(error))
    }).finally(() => { setChecking(false) })
  }, [])

  if (checking) return <main class='sign-in'><p role='status'>Checking the saved token…</p></main>
  if (operator === null) return <SignIn onSignedIn={setOperator} problem={problem} />

  const signOut = (): void => {
    forgetToken()
    setOperator(null)
    location.hash = ''
  }
  const [section = 'games', gameId, tab = 'overview', boardId] = route
  const current = (name: string): 'page' | undefined => section === name ? 'page' : undefined
  let page
  if (section === 'games' && gameId !== undefined) page = <GamePage gameId={gameId} tab={tab} boardId={boardId} />
  else if (section === 'users') page = <UsersPage />
  else if (section === 'audit') page = <AuditPage />
  else page = <GamesPage />

  return (
    <OperatorContext.Provider value={operator}>
      <a class='skip' href='#main' onClick={event => { event.preventDefault(); document.getElementById('main')?.focus() }}>Skip to the content</a>
      <header class='top'>
        <a class='brand' href='#/games'>Ranking console</a>
        <nav aria-label='Sections'>
          <a href='#/games' aria-current={current('games')}>Games</a>
          <a href='#/users' aria-current={current('users')}>Users</a>
          <a href='#/audit' aria-current={current('audit')}>Audit log</a>
        </nav>
        <div class='who'>
          <span class={`badge ${operator.role}`} title={operator.role === 'viewer' ? 'This token can look but not change anything.' : 'This token can change everything.'}>{operator.name} · {operator.role}</span>
          <button type='button' class='button secondary' onClick={signOut}>Sign out</button>
        </div>
      </header>
      <main id='main' tabIndex={-1}>{page}</main>
    </OperatorContext.Provider>
  )
}

render(<App />, document.getElementById('app')!)
