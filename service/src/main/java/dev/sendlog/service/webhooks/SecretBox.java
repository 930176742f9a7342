package dev.sendlog.service.webhooks;

import dev.sendlog.service.config.WebhookSettings;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Webhook secrets at rest: AES-256-GCM under {@code webhooks.secretKey}, a random 12-byte nonce per value, stored as
 * the nonce followed by the ciphertext and its 16-byte tag. The associated data binds a value to its tenant: a value
 * copied into another tenant's row does not open. A wrong key or a changed byte fails to open, never yields a wrong
 * secret.
 */
public final class SecretBox {
    public static final int KEY_BYTES = WebhookSettings.SECRET_KEY_BYTES;
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeySpec key;

    private SecretBox(byte[] key) {
        this.key = new SecretKeySpec(key, "AES");
    }

    /** The box for a key given as base64 of 32 bytes (config {@code webhooks.secretKey}). */
    public static SecretBox fromBase64(String base64Key) {
        byte[] key = decodeKey(base64Key);
        if (key == null) {
            throw new IllegalArgumentException("webhooks.secretKey must be base64 of exactly " + KEY_BYTES + " bytes");
        }
        return new SecretBox(key);
    }

    /** The key's bytes, or null when the text is not base64 (standard or url alphabet) of exactly 32 bytes. */
    public static byte[] decodeKey(String base64Key) {
        return WebhookSettings.decodeSecretKey(base64Key);
    }

    public byte[] seal(WebhookSecret secret, String tenant) {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(aad(tenant));
            byte[] sealed = cipher.doFinal(secret.key());
            byte[] out = Arrays.copyOf(nonce, NONCE_BYTES + sealed.length);
            System.arraycopy(sealed, 0, out, NONCE_BYTES, sealed.length);
            return out;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is part of every JDK", e);
        }
    }

    /** Opens a stored value; throws when the key is not the one it was sealed with or the value was changed. */
    public WebhookSecret open(byte[] stored, String tenant) {
        if (stored == null || stored.length <= NONCE_BYTES + TAG_BITS / 8) {
            throw new IllegalStateException("a stored webhook secret of tenant " + tenant + " is too short to open");
        }
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, stored, 0, NONCE_BYTES));
            cipher.updateAAD(aad(tenant));
            byte[] plain = cipher.doFinal(stored, NONCE_BYTES, stored.length - NONCE_BYTES);
            return WebhookSecret.of(new String(plain, StandardCharsets.UTF_8));
        } catch (javax.crypto.AEADBadTagException e) {
            // The message names the tenant, never a byte of the value.
            throw new IllegalStateException("a stored webhook secret of tenant " + tenant
                    + " does not open with webhooks.secretKey (a different key, or the value was changed)");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is part of every JDK", e);
        }
    }

    private static byte[] aad(String tenant) {
        return ("sendlog webhook secret v1\0" + tenant).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "SecretBox[key redacted]";
    }
}
