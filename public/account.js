// The account page (src/routes/account/index.ts): its forms call the player's
// own routes (docs/interface.md#your-account) and say what came of it.
(() => {
  'use strict'
  const $ = (selector) => document.querySelector(selector)

  async function send (method, url, fields) {
    try {
      const response = await fetch(url, { method, credentials: 'same-origin', body: method === 'GET' ? undefined : new URLSearchParams(fields) })
      return await response.json()
    } catch {
      return { ok: false, message: 'The service could not be reached; try again.' }
    }
  }

  /** After a new password or "log out everywhere else": only this browser is left in the list. */
  function onlyThisBrowser () {
    for (const item of document.querySelectorAll('#sessions li:not(:first-child)')) item.remove()
    const end = $('#end-others')?.parentElement
    if (end !== undefined && end !== null) end.outerHTML = '<p class="muted" id="sessions-none">Nowhere else.</p>'
  }

  /** Runs a form's request with its button held, and puts the answer in its status line. */
  function handle (form, status, request) {
    form?.addEventListener('submit', async (event) => {
      event.preventDefault()
      const button = form.querySelector('button[type=submit]')
      button.disabled = true
      status.textContent = 'Working…'
      try {
        const result = await request(new FormData(form))
        status.textContent = result
      } finally {
        button.disabled = false
      }
    })
  }

  const passwordForm = $('#password-form')
  handle(passwordForm, $('#password-status'), async (fields) => {
    const result = await send('POST', '/auth/password', { password: fields.get('password'), new_password: fields.get('new_password') })
    if (!result.ok) return result.message
    passwordForm.reset()
    onlyThisBrowser()
    return 'Your password is changed. You are still logged in here, and logged out everywhere else.'
  })

  $('#end-others')?.addEventListener('click', async () => {
    const result = await send('DELETE', '/auth/sessions', {})
    if (!result.ok) {
      $('#sessions-status').textContent = result.message
      return
    }
    onlyThisBrowser()
    $('#sessions-none').textContent = `Logged out of ${result.data.ended} other ${result.data.ended === 1 ? 'session' : 'sessions'}; nowhere else now.`
  })

  // The game token for Game Jolt's clients: read (made the first time it is asked for), and a new one after "are you sure".
  const token = $('#game-token')
  const tokenStatus = $('#game-token-status')
  const confirmNew = $('#game-token-confirm')
  async function showToken (method) {
    const result = await send(method, '/auth/game-token')
    if (!result.ok) {
      tokenStatus.textContent = result.message
      return false
    }
    token.textContent = result.data.game_token
    return true
  }
  if (token !== null && token.textContent === '') showToken('GET')
  $('#new-game-token')?.addEventListener('click', () => {
    confirmNew.hidden = false
    $('#game-token-no').focus()
  })
  $('#game-token-no')?.addEventListener('click', () => {
    confirmNew.hidden = true
    $('#new-game-token').focus()
  })
  $('#game-token-yes')?.addEventListener('click', async (event) => {
    const button = event.currentTarget
    button.disabled = true
    tokenStatus.textContent = 'Working…'
    const made = await showToken('POST')
    button.disabled = false
    confirmNew.hidden = true
    if (made) tokenStatus.textContent = 'A new token is made: log in to your games again with it.'
    $('#new-game-token').focus()
  })

  const deleteForm = $('#delete-form')
  handle(deleteForm, $('#delete-status'), async (fields) => {
    const confirmation = fields.has('password') ? { password: fields.get('password') } : { username: fields.get('username') }
    const result = await send('DELETE', '/auth/account', confirmation)
    if (!result.ok) return result.message
    // Nothing of the account is left to show: the page says so, and the header has nobody in it.
    $('main').innerHTML = '<h1>Account deleted</h1><p id="deleted">Your account and everything of yours are erased.</p><p><a href="/">Back to the games</a></p>'
    $('header.site .who').replaceChildren()
    return ''
  })
})()
