// Assimp side of the idmodel comparison (benches/compare/run).
//
//   assimp_harness bench FILE RUNS   -> one line: "ok <median_ns> <meshes> <vertices> <faces>"
//   assimp_harness dump FILE         -> frame-0 positions, one "x y z" line per vertex,
//                                       meshes in order, after a "mesh <n> <verts>" line
//
// Each run is one Importer::ReadFileFromMemory with no post-processing (pFlags = 0),
// which yields frame 0 with positions, normals, UVs and faces. The importer object is
// created once and reused, as a content pipeline would.
#include <assimp/Importer.hpp>
#include <assimp/scene.h>
#include <assimp/DefaultLogger.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

static std::vector<char> read_all(const char *path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

static std::string ext_of(const std::string &path) {
    auto dot = path.find_last_of('.');
    if (dot == std::string::npos) return "";
    std::string e = path.substr(dot + 1);
    for (auto &c : e) c = (char)tolower((unsigned char)c);
    return e;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s bench FILE RUNS | dump FILE\n", argv[0]);
        return 2;
    }
    std::string mode = argv[1];
    std::string path = argv[2];
    std::vector<char> data = read_all(path.c_str());
    std::string hint = ext_of(path);
    Assimp::Importer importer;

    if (mode == "dump") {
        const aiScene *s = importer.ReadFileFromMemory(data.data(), data.size(), 0, hint.c_str());
        if (!s) {
            std::printf("error %s\n", importer.GetErrorString());
            return 1;
        }
        for (unsigned m = 0; m < s->mNumMeshes; ++m) {
            const aiMesh *mesh = s->mMeshes[m];
            std::printf("mesh %u %u %u\n", m, mesh->mNumVertices, mesh->mNumFaces);
            for (unsigned v = 0; v < mesh->mNumVertices; ++v) {
                const aiVector3D &p = mesh->mVertices[v];
                std::printf("%.6f %.6f %.6f\n", p.x, p.y, p.z);
            }
        }
        return 0;
    }

    int runs = std::atoi(argv[3]);
    if (runs < 1) runs = 1;
    std::vector<double> ns;
    ns.reserve(runs);
    unsigned meshes = 0, verts = 0, faces = 0;
    for (int i = 0; i < runs; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        const aiScene *s = importer.ReadFileFromMemory(data.data(), data.size(), 0, hint.c_str());
        auto t1 = std::chrono::steady_clock::now();
        if (!s) {
            std::printf("error %s\n", importer.GetErrorString());
            return 1;
        }
        meshes = s->mNumMeshes;
        verts = faces = 0;
        for (unsigned m = 0; m < s->mNumMeshes; ++m) {
            verts += s->mMeshes[m]->mNumVertices;
            faces += s->mMeshes[m]->mNumFaces;
        }
        ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
        importer.FreeScene();
    }
    std::sort(ns.begin(), ns.end());
    std::printf("ok %.0f %u %u %u\n", ns[ns.size() / 2], meshes, verts, faces);
    return 0;
}
