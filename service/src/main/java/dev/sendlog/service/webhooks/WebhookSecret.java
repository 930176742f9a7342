package dev.sendlog.service.webhooks;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * A tenant's webhook signing secret: {@code whsec_} and 32 random bytes, base64url without padding. The HMAC key is the
 * UTF-8 bytes of the whole text as the client was shown it, prefix included, so a client signs with what it stored.
 * {@link #toString()} never shows it: a secret that reaches a log line, an exception message or a debugger's summary
 * by way of toString shows as redacted. Only {@link #reveal()} gives the text, for the one answer that shows it and the
 * signer.
 */
public final class WebhookSecret {
    public static final String PREFIX = "whsec_";
    private static final int RANDOM_BYTES = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String value;

    private WebhookSecret(String value) {
        this.value = value;
    }

    public static WebhookSecret generate() {
        byte[] bytes = new byte[RANDOM_BYTES];
        RANDOM.nextBytes(bytes);
        return new WebhookSecret(
                PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
    }

    /** A secret as stored or as a client holds it; refuses text that is not one, so a mangled value fails loudly. */
    public static WebhookSecret of(String value) {
        if (value == null || !value.startsWith(PREFIX)) {
            throw new IllegalArgumentException("not a webhook secret (whsec_...)");
        }
        byte[] bytes;
        try {
            bytes = Base64.getUrlDecoder().decode(value.substring(PREFIX.length()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a webhook secret (whsec_ and base64url)");
        }
        if (bytes.length != RANDOM_BYTES) {
            throw new IllegalArgumentException("not a webhook secret (" + RANDOM_BYTES + " bytes after whsec_)");
        }
        return new WebhookSecret(value);
    }

    /** The secret's text: for the answer that shows it once, and for signing. Never for a log. */
    public String reveal() {
        return value;
    }

    byte[] key() {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    /** Constant time, so that comparing secrets says nothing about how much of one matched. */
    @Override
    public boolean equals(Object other) {
        return other instanceof WebhookSecret s && MessageDigest.isEqual(key(), s.key());
    }

    @Override
    public int hashCode() {
        return 0;
    }

    @Override
    public String toString() {
        return "WebhookSecret[redacted]";
    }
}
