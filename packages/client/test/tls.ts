/**
 * A self-signed certificate for 127.0.0.1 (P-256, valid 100 years) and its
 * key, for the HTTPS tests only: made with
 * `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500
 * -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1"`. Nothing
 * trusts it but the tests that name it.
 */
export const key = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgnaDlCCGuTLE+dse9
G5UALAqedQuGdaVChx1Ql296u9ChRANCAASmab9dCKcijkSMtvii5jGsIUQxvGg4
5J0uUEQE7yQ+DnUXTX6tyuiIg76p9JlaiMIja+MIq5h4HC2lgvrdeAww
-----END PRIVATE KEY-----
`

export const cert = `-----BEGIN CERTIFICATE-----
MIIBkTCCATagAwIBAgIUZfnxw3ahQsHFlCddKlUwm/oqFq4wCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTIwMTE5MjgxNloYDzIxMjYxMTA3
MTkyODE2WjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASmab9dCKcijkSMtvii5jGsIUQxvGg45J0uUEQE7yQ+DnUXTX6tyuiI
g76p9JlaiMIja+MIq5h4HC2lgvrdeAwwo2QwYjAdBgNVHQ4EFgQUvpHKHdNuUav5
pB+U2AHAyPLFUyAwHwYDVR0jBBgwFoAUvpHKHdNuUav5pB+U2AHAyPLFUyAwDwYD
VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0kAMEYC
IQC/pvjM46LxlUo7182UphIGCALcumlFlcJzuewNXmuNjgIhAP/UOd9yYtFwwYF9
o+ISxx60gcxP84CpDxkSU7OiBq0S
-----END CERTIFICATE-----
`
