package dev.sendlog.service.webhooks;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * Where a webhook may point (API.md, "Status webhooks"; issue 27, SSRF). A URL must be http or https with a host, no
 * user info, a port 1 to 65535 and at most {@link #MAX_LENGTH} characters; then every address its host resolves to
 * must be public: not loopback, any-local, private (10/8, 172.16/12, 192.168/16), carrier-grade NAT (100.64/10),
 * link-local (169.254/16, fe80::/10), unique-local (fc00::/7), deprecated site-local (fec0::/10), multicast,
 * reserved (0/8, 240/4, broadcast), nor a cloud metadata name or address, also not when written as an IPv4-mapped,
 * IPv4-compatible, NAT64 (64:ff9b::/96) or 6to4 (2002::/16) IPv6 address. All addresses, not the first: a name that
 * resolves to a public and a private address could be sent to either. With {@code allowPrivateTargets} (tests, the
 * local demo) only the URL's form is checked.
 *
 * <p>Registration checks the URL; every delivery checks the addresses it actually connects to with
 * {@link #refusal(InetAddress)} inside the HTTP client's own resolver ({@link WebhookPoster}), since a name may resolve
 * elsewhere by then (DNS rebinding), and follows no redirect. The resolver is injectable so that tests need no DNS.
 */
public final class WebhookTargets {
    public static final int MAX_LENGTH = 2048;
    /** Cloud instance metadata services by name; their addresses are refused by range as well as by name below. */
    private static final Set<String> METADATA_NAMES = Set.of(
            "metadata.google.internal",
            "metadata.goog",
            "metadata",
            "instance-data",
            "instance-data.ec2.internal",
            "metadata.azure.internal");

    private static final byte[] AWS_METADATA_V6 = {
        (byte) 0xfd, 0x00, 0x0e, (byte) 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54
    };
    private static final Pattern ALL_NUMERIC_LABEL = Pattern.compile("(0x[0-9a-f]*|[0-9]+)");

    /** Resolves a host name to all its addresses; tests give a table, the service the system resolver. */
    @FunctionalInterface
    public interface Resolver {
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    public static final Resolver SYSTEM = InetAddress::getAllByName;
    /** How long registration waits for the system resolver (its own timeout and retries can take tens of seconds). */
    public static final Duration RESOLVE_TIMEOUT = Duration.ofSeconds(2);

    /** A lookup that took longer than the bound: refused, since an address that cannot be seen cannot be checked. */
    static final class ResolveTimeout extends UnknownHostException {
        private static final long serialVersionUID = 1L;

        ResolveTimeout(String host, Duration timeout) {
            super(host + " did not resolve within " + timeout.toMillis() + " ms");
        }
    }

    /**
     * {@code resolver} with a bound: the lookup runs on a virtual thread and the caller waits at most {@code timeout};
     * a lookup still running then is left to finish (or fail) on its own, holding no request thread.
     */
    public static Resolver bounded(Resolver resolver, Duration timeout) {
        return host -> {
            CompletableFuture<InetAddress[]> result = new CompletableFuture<>();
            Thread.ofVirtual().name("webhook-resolve").start(() -> {
                try {
                    result.complete(resolver.resolve(host));
                } catch (Throwable t) {
                    result.completeExceptionally(t);
                }
            });
            try {
                return result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new ResolveTimeout(host, timeout);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnknownHostException unknown) {
                    throw unknown;
                }
                UnknownHostException failed = new UnknownHostException(host);
                failed.initCause(e.getCause());
                throw failed;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new UnknownHostException(host + ": interrupted while resolving");
            }
        };
    }

    private final boolean allowPrivateTargets;
    private final Resolver resolver;

    public WebhookTargets(boolean allowPrivateTargets, Resolver resolver) {
        this.allowPrivateTargets = allowPrivateTargets;
        this.resolver = resolver;
    }

    public boolean allowsPrivateTargets() {
        return allowPrivateTargets;
    }

    /** Why {@code url} may not be a webhook target, or null when it may. Resolves its host unless private targets are allowed. */
    public String refusal(String url) {
        if (url == null || url.isEmpty()) {
            return "required: the http or https URL deliveries are posted to";
        }
        if (url.length() > MAX_LENGTH) {
            return "must be at most " + MAX_LENGTH + " characters; is " + url.length();
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            return "is not a valid URL: " + e.getReason();
        }
        String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!"http".equals(scheme) && !"https".equals(scheme)) {
            return "must be an http or https URL";
        }
        if (uri.getRawUserInfo() != null) {
            return "must not carry user info (user:password@); authenticate the delivery by its Sendlog-Signature";
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            return "must name a host (an ASCII DNS name, punycode for others, or an IP address)";
        }
        int port = uri.getPort();
        if (uri.getRawAuthority() != null && uri.getRawAuthority().endsWith(":")) {
            return "has an empty port";
        }
        if (port != -1 && (port < 1 || port > 65535)) {
            return "port must be 1 to 65535";
        }
        if (host.startsWith("[")) {
            host = host.substring(1, host.length() - 1);
        } else {
            host = host.toLowerCase(Locale.ROOT);
            if (host.endsWith(".")) {
                host = host.substring(0, host.length() - 1);
            }
            String[] labels = host.split("\\.");
            String last = labels[labels.length - 1];
            // 2130706433, 0x7f.1 or 127.1 name 127.0.0.1 to some resolvers and HTTP clients and a DNS name to others:
            // a host that is neither a dotted quad nor a name with a non-numeric top label means different things.
            if (ALL_NUMERIC_LABEL.matcher(last).matches() && !isDottedQuad(host)) {
                return "host is neither a DNS name nor a dotted-quad IPv4 address";
            }
        }
        if (allowPrivateTargets) {
            return null;
        }
        return hostRefusal(host);
    }

    /** Why a host (a name or an address literal, without brackets) may not be a target, after resolving it; null if it may. */
    public String hostRefusal(String host) {
        if (allowPrivateTargets) {
            return null;
        }
        String name = host.toLowerCase(Locale.ROOT);
        if (METADATA_NAMES.contains(name)) {
            return "is a cloud metadata service";
        }
        if (name.equals("localhost") || name.endsWith(".localhost")) {
            return "is loopback (localhost)";
        }
        InetAddress[] addresses;
        try {
            addresses = resolver.resolve(host);
        } catch (ResolveTimeout e) {
            return "host " + host + " did not resolve within " + RESOLVE_TIMEOUT.toMillis() + " ms; try again";
        } catch (UnknownHostException e) {
            return "host " + host + " does not resolve; it is checked against private addresses at registration";
        }
        if (addresses == null || addresses.length == 0) {
            return "host " + host + " does not resolve; it is checked against private addresses at registration";
        }
        for (InetAddress address : addresses) {
            String refusal = refusal(address);
            if (refusal != null) {
                return "host " + host + " resolves to " + address.getHostAddress() + ", which " + refusal;
            }
        }
        return null;
    }

    /**
     * Why a resolved address may not be connected to, or null when it may: the check a delivery makes on the address it
     * connects to. Always null with {@code allowPrivateTargets}.
     */
    public String refusal(InetAddress address) {
        return allowPrivateTargets ? null : addressRefusal(address);
    }

    /** The address rules alone, whatever the flag says. */
    public static String addressRefusal(InetAddress address) {
        byte[] b = address.getAddress();
        if (b.length == 4) {
            return ipv4Refusal(b);
        }
        if (Arrays.equals(b, AWS_METADATA_V6)) {
            return "is a cloud metadata address";
        }
        byte[] embedded = embeddedIpv4(b);
        if (embedded != null) {
            String refusal = ipv4Refusal(embedded);
            return refusal == null ? null : "embeds an IPv4 address that " + refusal;
        }
        int first = b[0] & 0xff;
        int second = b[1] & 0xff;
        if (isZero(b, 0, 15)) {
            return (b[15] == 0) ? "is the any-local address" : b[15] == 1 ? "is loopback" : "is reserved (::/96)";
        }
        if (first == 0xff) {
            return "is multicast";
        }
        if (first == 0xfe && (second & 0xc0) == 0x80) {
            return "is link-local";
        }
        if (first == 0xfe && (second & 0xc0) == 0xc0) {
            return "is site-local";
        }
        if ((first & 0xfe) == 0xfc) {
            return "is a unique-local (private) address";
        }
        return null;
    }

    private static String ipv4Refusal(byte[] b) {
        int a0 = b[0] & 0xff;
        int a1 = b[1] & 0xff;
        if (a0 == 169 && a1 == 254 && (b[2] & 0xff) == 169 && (b[3] & 0xff) == 254) {
            return "is a cloud metadata address";
        }
        if (a0 == 100 && a1 == 100 && (b[2] & 0xff) == 100 && (b[3] & 0xff) == 200) {
            return "is a cloud metadata address";
        }
        if (a0 == 0) {
            return (a1 | b[2] | b[3]) == 0 ? "is the any-local address" : "is reserved (0.0.0.0/8)";
        }
        if (a0 == 127) {
            return "is loopback";
        }
        if (a0 == 10 || (a0 == 172 && (a1 & 0xf0) == 16) || (a0 == 192 && a1 == 168)) {
            return "is private";
        }
        if (a0 == 100 && (a1 & 0xc0) == 64) {
            return "is carrier-grade NAT (100.64.0.0/10)";
        }
        if (a0 == 169 && a1 == 254) {
            return "is link-local";
        }
        if (a0 >= 224 && a0 <= 239) {
            return "is multicast";
        }
        if (a0 >= 240) {
            return "is reserved (240.0.0.0/4 or broadcast)";
        }
        return null;
    }

    /** The IPv4 address an IPv6 one carries: mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16. */
    private static byte[] embeddedIpv4(byte[] b) {
        boolean mapped = isZero(b, 0, 10) && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
        boolean compatible = isZero(b, 0, 12) && !isZero(b, 12, 15);
        boolean nat64 = (b[0] & 0xff) == 0
                && (b[1] & 0xff) == 0x64
                && (b[2] & 0xff) == 0xff
                && (b[3] & 0xff) == 0x9b
                && isZero(b, 4, 12);
        if (mapped || compatible || nat64) {
            return Arrays.copyOfRange(b, 12, 16);
        }
        if ((b[0] & 0xff) == 0x20 && (b[1] & 0xff) == 0x02) {
            return Arrays.copyOfRange(b, 2, 6);
        }
        return null;
    }

    private static boolean isZero(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean isDottedQuad(String host) {
        String[] parts = host.split("\\.", -1);
        if (parts.length != 4) {
            return false;
        }
        for (String p : parts) {
            if (p.isEmpty()
                    || p.length() > 3
                    || !p.chars().allMatch(Character::isDigit)
                    || (p.length() > 1 && p.charAt(0) == '0')
                    || Integer.parseInt(p) > 255) {
                return false;
            }
        }
        return true;
    }
}
