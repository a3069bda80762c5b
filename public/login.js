// The login page: a page of its own, never beside a hosted game (a game runs
// on this origin and could read what is typed next to it; docs/security.md).
(() => {
  'use strict'
  const form = document.querySelector('form.login')
  form?.addEventListener('submit', async (event) => {
    event.preventDefault()
    const fields = new FormData(form)
    const response = await fetch('/auth/login', {
      method: 'POST',
      credentials: 'same-origin',
      body: new URLSearchParams({ username: fields.get('username'), password: fields.get('password') })
    })
    const result = await response.json()
    // The server checked data-next: a path on this site.
    if (result.ok) window.location.assign(form.dataset.next)
    else {
      const status = document.querySelector('#login-status')
      status.textContent = result.message
      status.classList.add('problem')
    }
  })
})()
