/**
 * A headless "browser" for the sign-in tests, run as `$BROWSER <url>`: signs in as `$TEST_USER` (default alice) at the
 * authorization server (oidc-provider, which skips its login page for the `x-test-user` header), follows its redirects
 * and finally loads the redirect URI, which is `mrtr`'s loopback listener.
 */
import { headlessBrowser } from "@mrtr/test-support/oauth"

const url = process.argv[2]
if (url === undefined) process.exit(2)
const redirect = await headlessBrowser(process.env.TEST_USER ?? "alice")(url)
const response = await fetch(redirect)
process.exit(response.ok ? 0 : 1)
