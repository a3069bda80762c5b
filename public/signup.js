// The sign-up page: the ALTCHA widget solves the proof of work in a worker
// while the player types (docs/interface.md#sign-up), then the form posts it.
const form = document.querySelector('form.signup')
const status = document.querySelector('#signup-status')
const widget = document.querySelector('altcha-widget')

// Once the widget is on the page: its worker, the service's envelope
// unwrapped (the widget wants the challenge itself), then the solving starts.
widget?.addEventListener('load', () => {
  globalThis.$altcha.algorithms.set('PBKDF2/SHA-256', () => new globalThis.Worker('/static/altcha/workers/pbkdf2.js'))
  widget.configure({
    fetch: async (url, init) => {
      const answer = await (await fetch(url, { ...init, credentials: 'same-origin' })).json()
      if (!answer.ok) throw new Error(answer.message)
      return new Response(JSON.stringify(answer.data.challenge), { headers: { 'content-type': 'application/json' } })
    }
  })
  widget.verify()
}, { once: true })
// Loaded after the listener: the widget says `load` as soon as it is defined.
await import('/static/altcha/external/altcha.min.js')

/** The solved challenge: at once when the widget has it, else once it has (starting it again after a failure). */
function solved () {
  const payload = new FormData(form).get('altcha')
  if (typeof payload === 'string' && payload !== '') return Promise.resolve(payload)
  const verified = new Promise(resolve => {
    widget.addEventListener('verified', event => resolve(event.detail.payload), { once: true })
  })
  if (widget.getState() !== 'verifying') widget.verify()
  return verified
}

form?.addEventListener('submit', async (event) => {
  event.preventDefault()
  const button = form.querySelector('button[type=submit]')
  button.disabled = true
  status.textContent = 'Checking…'
  try {
    const fields = new FormData(form)
    const response = await fetch('/auth/signup', {
      method: 'POST',
      credentials: 'same-origin',
      body: new URLSearchParams({ username: fields.get('username'), password: fields.get('password'), altcha: await solved() })
    })
    const result = await response.json()
    // The server checked data-next: a path on this site.
    if (result.ok) {
      window.location.assign(form.dataset.next)
      return
    }
    status.textContent = result.message
    // Only a sign-up that passed every other check spends the proof of work: then (or when it
    // expired) the widget solves a new one; after any other refusal the same one is sent again.
    if (result.error === 'invalid_challenge') {
      widget.reset()
      widget.verify()
    }
  } catch {
    status.textContent = 'The service could not be reached; try again.'
  } finally {
    button.disabled = false
  }
})
