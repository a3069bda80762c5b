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

/** The solved challenge: at once when the widget has it, else once it has (starting it again after a failure). */
function solved () {
  const payload = new FormData(form).get('altcha')
  if (typeof payload === 'string' && payload !== '') return Promise.resolve(payload)
  const verified = new Promise((resolve, reject) => {
    const settle = event => {
      if (event.detail.state !== 'verified' && event.detail.state !== 'error' && event.detail.state !== 'expired') return
      widget.removeEventListener('statechange', settle)
      if (event.detail.state === 'verified') resolve(event.detail.payload)
      else reject(new Error('The proof of work could not be done; try again in a moment.'))
    }
    widget.addEventListener('statechange', settle)
  })
  if (widget.getState?.() !== 'verifying') widget.verify?.()
  return verified
}

/** Why the sign-up did not go through, shown as a problem (play.css), not as the plain text of "Checking…". */
function refused (message) {
  status.textContent = message
  status.classList.add('problem')
}

form?.addEventListener('submit', async (event) => {
  event.preventDefault()
  const button = form.querySelector('button[type=submit]')
  button.disabled = true
  status.classList.remove('problem')
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
    refused(result.message)
    // Only a sign-up that passed every other check spends the proof of work: then (or when it
    // expired) the widget solves a new one; after any other refusal the same one is sent again.
    if (result.error === 'invalid_challenge') {
      widget.reset()
      widget.verify()
    }
  } catch (error) {
    refused(error instanceof Error && error.message.startsWith('The proof of work') ? error.message : 'The service could not be reached; try again.')
  } finally {
    button.disabled = false
  }
})

// Last: the submit handler above is in place before the widget's script has
// arrived, and the `load` listener before the widget says it (as soon as it is defined).
await import('/static/altcha/external/altcha.min.js')
