package dev.sendlog.service.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Where a webhook may point (issue 27, SSRF). Names resolve through a table here, never DNS: an address literal is
 * parsed (no lookup), any other name not in the table does not resolve.
 */
class WebhookTargetsTest {
    private static final Pattern LITERAL = Pattern.compile("[0-9.]+|.*:.*");
    private static final Map<String, List<String>> NAMES = Map.of(
            "hooks.example.com", List.of("93.184.216.34"),
            "v6.example.com", List.of("2606:2800:220:1:248:1893:25c8:1946"),
            "intranet.example.com", List.of("10.20.30.40"),
            "mixed.example.com", List.of("93.184.216.34", "192.168.0.5"),
            "ula.example.com", List.of("fd12:3456:789a::1"),
            "rebind.example.com", List.of("127.0.0.1"),
            "metadata.google.internal", List.of("93.184.216.34"));
    private static final WebhookTargets.Resolver TABLE = host -> {
        if (NAMES.containsKey(host)) {
            List<InetAddress> out = new ArrayList<>();
            for (String a : NAMES.get(host)) {
                out.add(InetAddress.getByName(a));
            }
            return out.toArray(InetAddress[]::new);
        }
        if (LITERAL.matcher(host).matches()) {
            return new InetAddress[] {InetAddress.getByName(host)};
        }
        throw new UnknownHostException(host);
    };
    private static final WebhookTargets STRICT = new WebhookTargets(false, TABLE);
    private static final WebhookTargets ALLOWING = new WebhookTargets(true, TABLE);

    private static final List<String> REFUSED_V4 = List.of(
            "127.0.0.1",
            "127.255.255.254",
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "10.255.255.255",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.0.1",
            "192.168.255.255",
            "100.64.0.1",
            "100.127.255.255",
            "169.254.0.1",
            "169.254.169.254",
            "224.0.0.1",
            "239.255.255.255",
            "240.0.0.1",
            "255.255.255.255",
            "100.100.100.200");
    private static final List<String> REFUSED_V6 = List.of(
            "::1",
            "::",
            "fe80::1",
            "febf:ffff::1",
            "fc00::1",
            "fd12:3456::1",
            "fd00:ec2::254",
            "ff02::1",
            "ff0e::1",
            "fec0::1",
            "::127.0.0.1",
            "::10.0.0.1",
            "64:ff9b::a00:1",
            "64:ff9b::a9fe:a9fe",
            "2002:c0a8:0101::1",
            "2002:7f00:0001::1");
    private static final List<String> ALLOWED = List.of(
            "93.184.216.34",
            "8.8.8.8",
            "172.15.255.255",
            "172.32.0.1",
            "100.63.255.255",
            "100.128.0.1",
            "192.169.0.1",
            "169.253.255.255",
            "223.255.255.255",
            "2001:4860:4860::8888",
            "2606:4700::1111",
            "64:ff9b::808:808",
            "2002:0808:0808::1");

    private static String url(String address) {
        return address.contains(":") ? "https://[" + address + "]/hooks" : "https://" + address + "/hooks";
    }

    @Test
    void everyPrivateLoopbackLinkLocalMulticastAndMetadataRangeIsRefused() throws Exception {
        for (String a : concat(REFUSED_V4, REFUSED_V6)) {
            assertThat(STRICT.refusal(url(a))).as(a).isNotNull().contains("resolves to");
            assertThat(STRICT.refusal(InetAddress.getByName(a))).as(a).isNotNull();
        }
        assertThat(STRICT.refusal(url("169.254.169.254"))).contains("metadata");
        assertThat(STRICT.refusal(url("fd00:ec2::254"))).contains("metadata");
        assertThat(STRICT.refusal(url("127.0.0.1"))).contains("loopback");
        assertThat(STRICT.refusal(url("100.64.0.1"))).contains("carrier-grade NAT");
        assertThat(STRICT.refusal(url("fe80::1"))).contains("link-local");
        assertThat(STRICT.refusal(url("fc00::1"))).contains("unique-local");
    }

    @Test
    void publicAddressesAreAllowed() throws Exception {
        for (String a : ALLOWED) {
            assertThat(STRICT.refusal(url(a))).as(a).isNull();
            assertThat(STRICT.refusal(InetAddress.getByName(a))).as(a).isNull();
        }
        assertThat(STRICT.refusal("http://93.184.216.34:8080/path?q=1")).isNull();
        assertThat(STRICT.refusal("HTTPS://hooks.example.com/x")).isNull();
    }

    /** Java turns an IPv4-mapped literal into an IPv4 address; a resolver may hand over the IPv6 form itself. */
    @Test
    void ipv4MappedAddressesAreJudgedByTheAddressTheyCarry() throws Exception {
        for (String a : REFUSED_V4) {
            byte[] v4 = InetAddress.getByName(a).getAddress();
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xff;
            mapped[11] = (byte) 0xff;
            System.arraycopy(v4, 0, mapped, 12, 4);
            Inet6Address six = Inet6Address.getByAddress(null, mapped, -1);
            assertThat(WebhookTargets.addressRefusal(six)).as("::ffff:" + a).isNotNull();
            assertThat(STRICT.refusal(url("::ffff:" + a))).as("::ffff:" + a).isNotNull();
        }
        byte[] publicMapped = new byte[16];
        publicMapped[10] = (byte) 0xff;
        publicMapped[11] = (byte) 0xff;
        System.arraycopy(InetAddress.getByName("8.8.8.8").getAddress(), 0, publicMapped, 12, 4);
        assertThat(WebhookTargets.addressRefusal(Inet6Address.getByAddress(null, publicMapped, -1)))
                .isNull();
        assertThat(STRICT.refusal(url("::ffff:8.8.8.8"))).isNull();
    }

    @Test
    void aNameIsJudgedByEveryAddressItResolvesTo() {
        assertThat(STRICT.refusal("https://hooks.example.com/sendlog")).isNull();
        assertThat(STRICT.refusal("https://v6.example.com/sendlog")).isNull();
        assertThat(STRICT.refusal("https://intranet.example.com/sendlog"))
                .contains("10.20.30.40")
                .contains("private");
        assertThat(STRICT.refusal("https://mixed.example.com/sendlog"))
                .as("one private address among public ones")
                .contains("192.168.0.5");
        assertThat(STRICT.refusal("https://ula.example.com/sendlog")).contains("unique-local");
        assertThat(STRICT.refusal("https://rebind.example.com/sendlog")).contains("loopback");
        assertThat(STRICT.refusal("https://nowhere.example.com/sendlog")).contains("does not resolve");
        assertThat(STRICT.refusal("https://metadata.google.internal/computeMetadata/v1/"))
                .as("by name, whatever it resolves to")
                .contains("metadata");
        assertThat(STRICT.refusal("http://localhost:8080/")).contains("loopback");
        assertThat(STRICT.refusal("http://api.localhost/")).contains("loopback");
    }

    @Test
    void theUrlMustBeHttpOrHttpsWithAHostAndNoUserInfo() {
        List<String> bad = List.of(
                "ftp://hooks.example.com/",
                "file:///etc/passwd",
                "javascript:alert(1)",
                "gopher://x.example/",
                "hooks.example.com/path",
                "//hooks.example.com/",
                "https:///path",
                "https://",
                "https://user:pw@hooks.example.com/",
                "https://user@hooks.example.com/",
                "https://hooks.example.com:0/",
                "https://hooks.example.com:65536/",
                "https://hooks.example.com:99999999999/",
                "https://hooks.example.com:/",
                "https://exa mple.com/",
                "https://hooks.example.com/" + "a".repeat(WebhookTargets.MAX_LENGTH),
                "http://2130706433/",
                "http://0x7f.1/",
                "http://127.1/",
                "http://017700000001/",
                "http://127.0.0.01/",
                "",
                "https://hooks.example.com/\n");
        for (String url : bad) {
            assertThat(STRICT.refusal(url)).as(url).isNotNull();
            assertThat(ALLOWING.refusal(url))
                    .as("the flag allows addresses, not forms: " + url)
                    .isNotNull();
        }
        assertThat(STRICT.refusal("ftp://hooks.example.com/")).contains("http or https");
        assertThat(STRICT.refusal("https://user:pw@hooks.example.com/")).contains("user info");
        assertThat(STRICT.refusal("https://hooks.example.com/" + "a".repeat(3000)))
                .contains("2048");
        assertThat(STRICT.refusal("https://hooks.example.com:65535/x")).isNull();
        assertThat(STRICT.refusal("https://hooks.example.com:1/x")).isNull();
        String longest = "https://hooks.example.com/" + "a".repeat(WebhookTargets.MAX_LENGTH - 26);
        assertThat(longest).hasSize(WebhookTargets.MAX_LENGTH);
        assertThat(STRICT.refusal(longest)).isNull();
    }

    @Test
    void allowPrivateTargetsLetsEveryAddressThrough() throws Exception {
        for (String a : concat(REFUSED_V4, REFUSED_V6)) {
            assertThat(ALLOWING.refusal(url(a))).as(a).isNull();
            assertThat(ALLOWING.refusal(InetAddress.getByName(a))).as(a).isNull();
        }
        assertThat(ALLOWING.refusal("http://localhost:8080/hook")).isNull();
        assertThat(ALLOWING.refusal("https://intranet.example.com/x")).isNull();
        assertThat(ALLOWING.refusal("http://metadata.google.internal/")).isNull();
        assertThat(ALLOWING.allowsPrivateTargets()).isTrue();
        assertThat(STRICT.allowsPrivateTargets()).isFalse();
    }

    @Test
    void aLookupIsBoundedAndASlowOneIsRefused() throws Exception {
        java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
        WebhookTargets.Resolver stuck = host -> {
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new UnknownHostException(host);
        };
        WebhookTargets slow =
                new WebhookTargets(false, WebhookTargets.bounded(stuck, java.time.Duration.ofMillis(200)));
        long start = System.nanoTime();
        String refusal = slow.refusal("https://slow.example.com/hook");
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        never.countDown();

        assertThat(refusal).contains("did not resolve within");
        assertThat(tookMs).isBetween(150L, 5_000L);
        WebhookTargets bounded =
                new WebhookTargets(false, WebhookTargets.bounded(TABLE, java.time.Duration.ofSeconds(5)));
        assertThat(bounded.refusal("https://hooks.example.com/x")).isNull();
        assertThat(bounded.refusal("https://intranet.example.com/x")).contains("private");
        assertThat(bounded.refusal("https://nowhere.example.com/x")).contains("does not resolve");
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
