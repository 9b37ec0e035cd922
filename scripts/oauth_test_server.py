#!/usr/bin/env python3
"""Tern's local OAuth 2.0 test endpoint: an authorization server for the installed-app flow
(RFC 8252 loopback redirect, RFC 7636 PKCE S256), refresh tokens, and token introspection
(RFC 7662) for Dovecot's oauth2 passdb. Started by scripts/mailservers; for tests only.

  GET  /authorize     consents at once for login_hint (a test user) and redirects with a code;
                      in "page" mode it shows a consent page instead, whose Allow and Deny buttons
                      (GET /authorize/decision) redirect with a code or with error=access_denied
  POST /token         authorization_code (PKCE checked) and refresh_token grants
  POST /introspect    {"active": true, "email": user} for a live access token
  POST /admin/expire-access    every access token stops working (the client must refresh)
  POST /admin/revoke-refresh   every refresh token stops working (the client must sign in again)
  POST /admin/rotate-refresh?on=1|0   each refresh issues a new refresh token and revokes the old
                                      one (RFC 6749 section 6), as some providers do; off by default
  POST /admin/token-delay?seconds=S   the token endpoint answers S seconds late (overlapping refreshes)
  POST /admin/consent?mode=auto|page   consent at once (the default) or on the consent page
  GET  /admin/stats   counts of grants, for tests
"""
import argparse, base64, hashlib, html, json, secrets, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse, parse_qs, urlencode

LOCK = threading.Lock()
CODES, ACCESS, REFRESH = {}, {}, {}
SETTINGS = {"rotate": False, "delay": 0.0, "consent": "auto"}
STATS = {"authorization_code": 0, "refresh_token": 0, "introspect_active": 0, "introspect_inactive": 0, "pkce_refused": 0}
AUTHORIZATION_FIELDS = ("response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method",
                        "login_hint", "access_type", "prompt")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Handler(BaseHTTPRequestHandler):
    users = set()
    lifetime = 3600

    def log_message(self, fmt, *args):
        pass

    def reply(self, status, body, headers=None):
        data = json.dumps(body).encode() if not isinstance(body, bytes) else body
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def form(self):
        length = int(self.headers.get("Content-Length") or 0)
        return {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}

    def consent_page(self, query):
        """An accessible page with the request's fields and Allow / Deny, as a provider shows one."""
        hidden = "".join(f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
                         for k, v in query.items() if k in AUTHORIZATION_FIELDS)
        user = html.escape(query.get("login_hint", ""))
        page = (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test sign-in</title></head><body><main>'
                f'<h1>Test sign-in</h1><p>Tern asks to read and send the mail of {user}.</p>'
                f'<form method="get" action="/authorize/decision">{hidden}'
                f'<button type="submit" name="decision" value="allow">Allow</button> '
                f'<button type="submit" name="decision" value="deny">Deny</button></form></main></body></html>').encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def do_GET(self):
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path in ("/authorize", "/authorize/decision"):
            redirect = query.get("redirect_uri", "")
            if not redirect.startswith("http://127.0.0.1:"):
                return self.reply(400, {"error": "invalid_request", "error_description": "loopback redirect required"})
            if query.get("response_type") != "code" or query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
                return self.reply(400, {"error": "invalid_request", "error_description": "code flow with PKCE S256 required"})
            if url.path == "/authorize" and SETTINGS["consent"] == "page":
                return self.consent_page(query)
            user = query.get("login_hint", "")
            if user not in self.users or query.get("decision") == "deny":
                params = {"error": "access_denied", "state": query.get("state", "")}
            else:
                code = secrets.token_urlsafe(16)
                with LOCK:
                    CODES[code] = dict(client=query.get("client_id"), redirect=redirect, challenge=query["code_challenge"], user=user)
                params = {"code": code, "state": query.get("state", "")}
            self.send_response(302)
            self.send_header("Location", redirect + "?" + urlencode(params))
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif url.path == "/admin/stats":
            with LOCK:
                self.reply(200, dict(STATS))
        else:
            self.reply(404, {"error": "not_found"})

    def issue(self, user, client):
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        ACCESS[access] = dict(user=user, expires=time.time() + self.lifetime)
        REFRESH[refresh] = dict(user=user, client=client)
        return {"access_token": access, "refresh_token": refresh, "expires_in": self.lifetime, "token_type": "Bearer"}

    def do_POST(self):
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path == "/token":
            form = self.form()
            time.sleep(SETTINGS["delay"])
            with LOCK:
                if form.get("grant_type") == "authorization_code":
                    grant = CODES.pop(form.get("code", ""), None)
                    verifier = form.get("code_verifier", "")
                    if (not grant or grant["redirect"] != form.get("redirect_uri") or grant["client"] != form.get("client_id")
                            or b64url(hashlib.sha256(verifier.encode()).digest()) != grant["challenge"]):
                        if grant:
                            STATS["pkce_refused"] += 1
                        return self.reply(400, {"error": "invalid_grant"})
                    STATS["authorization_code"] += 1
                    return self.reply(200, self.issue(grant["user"], grant["client"]))
                if form.get("grant_type") == "refresh_token":
                    grant = REFRESH.get(form.get("refresh_token", ""))
                    if not grant or grant["client"] != form.get("client_id"):
                        return self.reply(400, {"error": "invalid_grant", "error_description": "refresh token revoked"})
                    STATS["refresh_token"] += 1
                    token = self.issue(grant["user"], grant["client"])
                    if SETTINGS["rotate"]:
                        del REFRESH[form["refresh_token"]]
                    else:
                        del REFRESH[token["refresh_token"]]
                        del token["refresh_token"]  # like Google: the refresh token stays the same
                    return self.reply(200, token)
            return self.reply(400, {"error": "unsupported_grant_type"})
        if url.path == "/introspect":
            form = self.form()
            token = form.get("token") or self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
            with LOCK:
                entry = ACCESS.get(token)
                if entry and entry["expires"] > time.time():
                    STATS["introspect_active"] += 1
                    return self.reply(200, {"active": True, "email": entry["user"], "username": entry["user"]})
                STATS["introspect_inactive"] += 1
            return self.reply(200, {"active": False})
        if url.path == "/admin/expire-access":
            with LOCK:
                ACCESS.clear()
            return self.reply(200, {"ok": True})
        if url.path == "/admin/consent":
            SETTINGS["consent"] = "page" if query.get("mode") == "page" else "auto"
            return self.reply(200, {"ok": True})
        if url.path == "/admin/rotate-refresh":
            SETTINGS["rotate"] = query.get("on") == "1"
            return self.reply(200, {"ok": True})
        if url.path == "/admin/token-delay":
            SETTINGS["delay"] = float(query.get("seconds", "0"))
            return self.reply(200, {"ok": True})
        if url.path == "/admin/revoke-refresh":
            with LOCK:
                REFRESH.clear()
                ACCESS.clear()
            return self.reply(200, {"ok": True})
        self.reply(404, {"error": "not_found"})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--users", required=True, help="comma-separated addresses")
    parser.add_argument("--lifetime", type=int, default=3600)
    args = parser.parse_args()
    Handler.users = set(args.users.split(","))
    Handler.lifetime = args.lifetime
    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
