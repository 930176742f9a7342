package dev.sendlog.service.receipts;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** {@code X-Signature: sha256=<hex HMAC-SHA256 of the raw body with the gateway's secret>}, compared in constant time. */
public final class CallbackSignature {
    private static final String PREFIX = "sha256=";
    private static final int MAX_KEYS = 256;
    /**
     * A keyed MAC per secret, never used itself, only cloned: looking the algorithm up and keying it took about 6% of
     * the intake threads' samples under a flood of callbacks, for the same few secrets every time.
     */
    private static final ConcurrentHashMap<String, Mac> KEYED = new ConcurrentHashMap<>();

    private CallbackSignature() {}

    public static String sign(String secret, byte[] body) {
        return PREFIX + HexFormat.of().formatHex(mac(secret).doFinal(body));
    }

    private static Mac mac(String secret) {
        if (KEYED.size() > MAX_KEYS) {
            KEYED.clear();
        }
        try {
            return (Mac) KEYED.computeIfAbsent(secret, CallbackSignature::keyed).clone();
        } catch (CloneNotSupportedException providerCannotClone) {
            return keyed(secret);
        }
    }

    private static Mac keyed(String secret) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac;
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    /**
     * Whether the header has the signature's shape ({@code sha256=} and 64 hex digits, as {@link #verify} compares it):
     * one that has not is refused before the body is read.
     */
    public static boolean wellFormed(String header) {
        if (header == null) {
            return false;
        }
        String value = header.trim().toLowerCase(java.util.Locale.ROOT);
        if (value.length() != PREFIX.length() + 64 || !value.startsWith(PREFIX)) {
            return false;
        }
        for (int i = PREFIX.length(); i < value.length(); i++) {
            char c = value.charAt(i);
            if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
                return false;
            }
        }
        return true;
    }

    public static boolean verify(String secret, byte[] body, String header) {
        if (header == null || secret == null || secret.isEmpty()) {
            return false;
        }
        byte[] expected = sign(secret, body).getBytes(StandardCharsets.US_ASCII);
        byte[] given = header.trim().toLowerCase(java.util.Locale.ROOT).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, given);
    }
}
