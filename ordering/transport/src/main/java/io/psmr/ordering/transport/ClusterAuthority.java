package io.psmr.ordering.transport;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A cluster's certificate authority: an ECDSA P-256 key and a self-signed CA certificate, which issues each member's
 * certificate ({@link ClusterMember} in a URI subject alternative name, the member's hosts as IP or DNS names, usable
 * for TLS servers and clients). Certificates are built with Bouncy Castle and signed by the JDK's provider.
 *
 * <p>Immutable; any thread.
 */
public final class ClusterAuthority {

    /** How long certificates issued by {@link #create} and {@link #issue} are valid by default. */
    public static final Duration DEFAULT_VALIDITY = Duration.ofDays(5 * 365);
    private static final String SIGNATURE = "SHA256withECDSA";

    /** A member's certificate and private key. */
    public record Issued(X509Certificate certificate, PrivateKey key) {
        /** Writes the certificate and the key as owner-only PEM files (each replaced atomically). */
        public void write(Path certificateFile, Path keyFile) throws IOException {
            writePem(certificateFile, Pem.CERTIFICATE, encoded(certificate));
            writePem(keyFile, Pem.PRIVATE_KEY, key.getEncoded());
        }
    }

    private final String cluster;
    private final X509Certificate certificate;
    private final PrivateKey key;
    private final SecureRandom random;
    private final Duration validity;

    private ClusterAuthority(String cluster, X509Certificate certificate, PrivateKey key, SecureRandom random, Duration validity) {
        this.cluster = cluster;
        this.certificate = certificate;
        this.key = key;
        this.random = random;
        this.validity = validity;
    }

    /** A new authority for {@code cluster}, valid for {@code validity} from now. */
    public static ClusterAuthority create(String cluster, Duration validity, SecureRandom random) {
        ClusterMember.node(cluster, "authority"); // checks the id
        KeyPair pair = newKeyPair(random);
        X500Name name = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.O, "psmr").addRDN(BCStyle.CN,
                "psmr cluster " + cluster + " authority").build();
        Instant now = Instant.now();
        X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, serial(random), Date.from(now.minusSeconds(60)),
                Date.from(now.plus(validity)), name, pair.getPublic());
        try {
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        } catch (CertIOException e) {
            throw new IllegalStateException(e);
        }
        return new ClusterAuthority(cluster, sign(b, pair.getPrivate()), pair.getPrivate(), random, validity);
    }

    /**
     * The authority in {@code certificateFile} and {@code keyFile} (owner-only PEM files), to issue more members.
     *
     * @throws TlsFileException naming the file and the problem
     */
    public static ClusterAuthority load(String cluster, Path certificateFile, Path keyFile, SecureRandom random) throws IOException {
        X509Certificate cert;
        PrivateKey key;
        try {
            OwnerOnlyFiles.checkOwnerOnly(keyFile, "TLS authority key file", TlsFileException::new);
            cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(
                    Pem.decode(Pem.CERTIFICATE, Files.readString(certificateFile, StandardCharsets.US_ASCII)).get(0)));
            key = KeyFactory.getInstance(cert.getPublicKey().getAlgorithm()).generatePrivate(new PKCS8EncodedKeySpec(
                    Pem.decode(Pem.PRIVATE_KEY, Files.readString(keyFile, StandardCharsets.US_ASCII)).get(0)));
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new TlsFileException(certificateFile, "TLS authority " + certificateFile + " and " + keyFile
                    + " are not a PEM certificate and its PKCS #8 key: " + e.getMessage());
        }
        return new ClusterAuthority(cluster, cert, key, random, DEFAULT_VALIDITY);
    }

    /** The authority's certificate, every member's one trust anchor. */
    public X509Certificate certificate() {
        return certificate;
    }

    /**
     * A new key and certificate for {@code member}.
     *
     * @param hosts the member's addresses (IP literals or DNS names), written as subject alternative names for tools
     *              that check them; psmr itself checks the member name
     */
    public Issued issue(ClusterMember member, List<String> hosts) {
        if (!member.cluster().equals(cluster)) {
            throw new IllegalArgumentException("the authority of cluster " + cluster + " does not issue for " + member);
        }
        KeyPair pair = newKeyPair(random);
        X500Name subject = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.O, "psmr")
                .addRDN(BCStyle.OU, member.role().word()).addRDN(BCStyle.CN, member.name()).build();
        Instant now = Instant.now();
        Instant until = now.plus(validity);
        if (until.isAfter(certificate.getNotAfter().toInstant())) {
            until = certificate.getNotAfter().toInstant();
        }
        X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(certificate, serial(random),
                Date.from(now.minusSeconds(60)), Date.from(until), subject, pair.getPublic());
        List<GeneralName> names = new ArrayList<>();
        names.add(new GeneralName(GeneralName.uniformResourceIdentifier, member.uri().toString()));
        for (String host : hosts) {
            names.add(new GeneralName(isIpLiteral(host) ? GeneralName.iPAddress : GeneralName.dNSName, host));
        }
        try {
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
            b.addExtension(Extension.extendedKeyUsage, false,
                    new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names.toArray(GeneralName[]::new)));
        } catch (CertIOException e) {
            throw new IllegalStateException(e);
        }
        return new Issued(sign(b, key), pair.getPrivate());
    }

    /** Writes the authority's certificate and key as owner-only PEM files. */
    public void write(Path certificateFile, Path keyFile) throws IOException {
        new Issued(certificate, key).write(certificateFile, keyFile);
    }

    private static boolean isIpLiteral(String host) {
        if (!host.matches("[0-9.]+|.*:.*")) {
            return false;
        }
        try {
            InetAddress.getByName(host); // a literal: no lookup
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static KeyPair newKeyPair(SecureRandom random) {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"), Objects.requireNonNull(random, "random"));
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK offers no EC P-256 keys: " + e, e);
        }
    }

    private static BigInteger serial(SecureRandom random) {
        return new BigInteger(127, random).add(BigInteger.ONE);
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey signer) {
        try {
            return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder(SIGNATURE).build(signer)));
        } catch (OperatorCreationException | CertificateException e) {
            throw new IllegalStateException("cannot sign a certificate: " + e, e);
        }
    }

    private static byte[] encoded(X509Certificate c) {
        try {
            return c.getEncoded();
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void writePem(Path file, String type, byte[] der) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        OwnerOnlyFiles.ownerOnlyDirectory(dir, "TLS directory", TlsFileException::new);
        Path tmp = OwnerOnlyFiles.writeTemporary(dir, "." + file.getFileName(), Pem.encode(type, der).getBytes(StandardCharsets.US_ASCII));
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
        OwnerOnlyFiles.syncDirectory(dir);
    }
}
