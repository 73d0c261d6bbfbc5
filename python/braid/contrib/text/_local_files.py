"""Finding a pre-trained embedding file on the local disk.

Braid does not download pre-trained embeddings. A file named ``NAME`` of the embedding class
``Cls`` is looked for at ``<embedding_root>/<cls>/NAME`` (the class name in lower case, as MXNet
stores its downloads). Where only the archive MXNet would download sits in that folder (a .zip or
.tar.gz), it is unpacked there first. Anything else ends in an error that names the exact path and
the address to fetch the file from.
"""
import hashlib
import os
import tarfile
import zipfile

from ... import base

# Where MXNet 1.9.1 fetches its pre-trained embeddings from, unless MXNET_GLUON_REPO is set.
APACHE_REPO_URL = "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/"


def default_embedding_root():
    """``$MXNET_HOME/embeddings``, else ``~/.mxnet/embeddings`` (read at each call)."""
    return os.path.join(base.data_dir(), "embeddings")


def download_url(class_folder, archive_name):
    """The address MXNet downloads ``archive_name`` of an embedding class from."""
    repo_url = os.environ.get("MXNET_GLUON_REPO", APACHE_REPO_URL)
    if not repo_url.endswith("/"):
        repo_url += "/"
    return "%sgluon/embeddings/%s/%s" % (repo_url, class_folder, archive_name)


def sha1_of(path):
    """The SHA-1 hex digest of a file's content, read a megabyte at a time."""
    digest = hashlib.sha1()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _unpack(archive_path, folder):
    if archive_path.endswith(".zip"):
        with zipfile.ZipFile(archive_path, "r") as zf:
            zf.extractall(folder)
    elif archive_path.endswith((".tar.gz", ".tgz", ".gz")):
        with tarfile.open(archive_path, "r:gz") as tar:
            if hasattr(tarfile, "data_filter"):  # refuses members that would land outside folder
                tar.extractall(path=folder, filter="data")
            else:
                tar.extractall(path=folder)


def find_pretrained_file(embedding_root, class_folder, file_name, expected_sha1, archive_name):
    """The path of a pre-trained file whose content has SHA-1 `expected_sha1`.

    Parameters
    ----------
    embedding_root : str
        The folder holding one sub-folder per embedding class ('~' is expanded).
    class_folder : str
        That sub-folder's name: the embedding class name in lower case.
    file_name : str
        The pre-trained file, e.g. 'glove.6B.50d.txt'.
    expected_sha1 : str or None
        The SHA-1 hex digest its content must have; None skips the check.
    archive_name : str
        The file MXNet downloads for it: an archive holding it, or `file_name` itself.

    Raises
    ------
    FileNotFoundError
        Neither the file nor its archive is in the folder.
    ValueError
        The file is there but its content is not the expected one.
    """
    folder = os.path.join(os.path.expanduser(embedding_root), class_folder)
    path = os.path.join(folder, file_name)
    url = download_url(class_folder, archive_name)
    archive_path = os.path.join(folder, archive_name)

    if not os.path.isfile(path) and archive_name != file_name and os.path.isfile(archive_path):
        _unpack(archive_path, folder)

    if not os.path.isfile(path):
        if archive_name != file_name:
            how = ("download %s and put it (it is unpacked at the next load) or the %s it holds in "
                   "%s" % (url, file_name, os.path.abspath(folder)))
        else:
            how = "download %s and save it as that path" % url
        raise FileNotFoundError(
            "Pre-trained embedding file not found: %s. Braid does not download pre-trained "
            "embeddings: %s. Or pass embedding_root=, the folder whose '%s' sub-folder holds the "
            "file (by default $MXNET_HOME/embeddings, else ~/.mxnet/embeddings)."
            % (os.path.abspath(path), how, class_folder))

    if expected_sha1 is not None:
        found = sha1_of(path)
        if found != expected_sha1:
            raise ValueError(
                "Pre-trained embedding file %s is not the expected one: its SHA-1 is %s, %s was "
                "expected (a partial or different file?). Replace it with the one from %s."
                % (os.path.abspath(path), found, expected_sha1, url))
    return path
