package io.psmr.ordering.transport;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;

/**
 * One member's TLS identity: the cluster's certificate authority, the member's certificate (signed by it, naming the
 * member, see {@link ClusterMember}) and its private key. Immutable; any thread.
 */
public final class TlsCredentials {

    /** The largest certificate or key file read: a PEM file of a few blocks is a few KiB. */
    public static final int MAX_FILE_BYTES = 64 * 1024;

    private final X509Certificate authority;
    private final X509Certificate certificate;
    private final PrivateKey key;
    private final ClusterMember self;

    private TlsCredentials(X509Certificate authority, X509Certificate certificate, PrivateKey key, ClusterMember self) {
        this.authority = authority;
        this.certificate = certificate;
        this.key = key;
        this.self = self;
    }

    /**
     * Credentials from objects in memory, checked as {@link #load} checks files.
     *
     * @throws IllegalArgumentException naming the problem
     */
    public static TlsCredentials of(X509Certificate authority, X509Certificate certificate, PrivateKey key) {
        try {
            check(authority, certificate, key, null, null);
        } catch (TlsFileException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        return new TlsCredentials(authority, certificate, key, ClusterMember.of(certificate));
    }

    /**
     * Reads and checks a member's files: each owner-only (rw-------), at most {@value #MAX_FILE_BYTES} bytes and PEM;
     * the certificate signed by the authority, valid now and naming one psmr member; the key matching it.
     *
     * @param authorityFile   the cluster's CA certificate
     * @param certificateFile the member's certificate
     * @param keyFile         the member's PKCS #8 private key
     * @throws TlsFileException naming the file and the problem
     */
    public static TlsCredentials load(Path authorityFile, Path certificateFile, Path keyFile) throws IOException {
        X509Certificate authority = certificate(authorityFile, "TLS authority certificate");
        X509Certificate certificate = certificate(certificateFile, "TLS certificate");
        byte[] der = single(keyFile, "TLS key", Pem.PRIVATE_KEY);
        PrivateKey key;
        try {
            key = KeyFactory.getInstance(certificate.getPublicKey().getAlgorithm()).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException e) {
            throw new TlsFileException(keyFile, "TLS key file " + keyFile + " holds no " + certificate.getPublicKey().getAlgorithm()
                    + " PKCS #8 private key (the algorithm of " + certificateFile + "): " + e.getMessage());
        }
        check(authority, certificate, key, certificateFile, keyFile);
        return new TlsCredentials(authority, certificate, key, ClusterMember.of(certificate));
    }

    private static void check(X509Certificate authority, X509Certificate certificate, PrivateKey key, Path certificateFile,
                              Path keyFile) throws TlsFileException {
        String where = certificateFile == null ? "the certificate" : "TLS certificate " + certificateFile;
        try {
            certificate.verify(authority.getPublicKey());
        } catch (GeneralSecurityException e) {
            throw new TlsFileException(certificateFile, where + " is not signed by the cluster's authority '"
                    + authority.getSubjectX500Principal().getName() + "': " + e.getMessage());
        }
        try {
            certificate.checkValidity();
            authority.checkValidity();
        } catch (CertificateException e) {
            throw new TlsFileException(certificateFile, where + " or its authority is not valid now: " + e.getMessage());
        }
        try {
            ClusterMember.of(certificate);
        } catch (IllegalArgumentException e) {
            throw new TlsFileException(certificateFile, where + ": " + e.getMessage());
        }
        try {
            String algorithm = switch (key.getAlgorithm()) {
                case "EC" -> "SHA256withECDSA";
                case "RSA" -> "SHA256withRSA";
                default -> key.getAlgorithm(); // Ed25519, Ed448
            };
            byte[] probe = "psmr key check".getBytes(StandardCharsets.US_ASCII);
            Signature sign = Signature.getInstance(algorithm);
            sign.initSign(key);
            sign.update(probe);
            byte[] signature = sign.sign();
            Signature verify = Signature.getInstance(algorithm);
            verify.initVerify(certificate.getPublicKey());
            verify.update(probe);
            if (!verify.verify(signature)) {
                throw new TlsFileException(keyFile, (keyFile == null ? "the key" : "TLS key file " + keyFile)
                        + " does not match " + where);
            }
        } catch (GeneralSecurityException e) {
            throw new TlsFileException(keyFile, (keyFile == null ? "the key" : "TLS key file " + keyFile)
                    + " cannot sign for " + where + ": " + e.getMessage());
        }
    }

    private static X509Certificate certificate(Path file, String what) throws IOException {
        byte[] der = single(file, what, Pem.CERTIFICATE);
        try {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der));
        } catch (CertificateException e) {
            throw new TlsFileException(file, what + " file " + file + " holds no X.509 certificate: " + e.getMessage());
        }
    }

    private static byte[] single(Path file, String what, String type) throws IOException {
        if (!Files.exists(file)) {
            throw new TlsFileException(file, what + " file " + file + " is missing; cluster init or cluster start writes a"
                    + " cluster's TLS files, or put the operator's there (see docs/security.md)");
        }
        if (!Files.isRegularFile(file)) {
            throw new TlsFileException(file, what + " file " + file + " is not a regular file");
        }
        OwnerOnlyFiles.checkOwnerOnly(file, what + " file", TlsFileException::new);
        long size = Files.size(file);
        if (size > MAX_FILE_BYTES) {
            throw new TlsFileException(file, what + " file " + file + " is " + size + " bytes, more than "
                    + MAX_FILE_BYTES + ": not a PEM " + type.toLowerCase(java.util.Locale.ROOT) + " file");
        }
        List<byte[]> blocks;
        try {
            blocks = Pem.decode(type, Files.readString(file, StandardCharsets.US_ASCII));
        } catch (IllegalArgumentException | java.nio.charset.MalformedInputException e) {
            throw new TlsFileException(file, what + " file " + file + " is not PEM: " + e.getMessage());
        }
        if (blocks.size() != 1) {
            throw new TlsFileException(file, what + " file " + file + " holds " + blocks.size() + " '" + type
                    + "' PEM blocks; it must hold exactly one");
        }
        return blocks.get(0);
    }

    /** The cluster's certificate authority. */
    public X509Certificate authority() {
        return authority;
    }

    /** This member's certificate. */
    public X509Certificate certificate() {
        return certificate;
    }

    /** The member these credentials speak for. */
    public ClusterMember self() {
        return self;
    }

    /** Key managers presenting this member's certificate (and the authority after it). */
    KeyManagerFactory keyManagers() {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            char[] none = new char[0];
            store.setKeyEntry("member", key, none, new Certificate[] {certificate, authority});
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(store, none);
            return kmf;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot hold " + self + "'s key in a key store: " + e, e);
        }
    }

    @Override
    public String toString() {
        return "TlsCredentials[" + self + "]";
    }
}
