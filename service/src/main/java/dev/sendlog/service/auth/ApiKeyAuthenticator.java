package dev.sendlog.service.auth;

import io.dropwizard.auth.Authenticator;
import java.util.Optional;

/** Bearer key to caller. Wrapped in Dropwizard's CachingAuthenticator so a request costs no query. */
public final class ApiKeyAuthenticator implements Authenticator<String, Caller> {
    private static final int MAX_KEY_LENGTH = 256;
    private final ApiKeyStore keys;

    public ApiKeyAuthenticator(ApiKeyStore keys) {
        this.keys = keys;
    }

    @Override
    public Optional<Caller> authenticate(String key) {
        if (key == null || key.isBlank() || key.length() > MAX_KEY_LENGTH) {
            return Optional.empty();
        }
        return keys.find(key);
    }
}
